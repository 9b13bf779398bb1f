"""The whole runtime with Gemini through the real google-genai SDK, against the local fake of the
Gemini REST API: a tool-calling conversation, with and without streaming."""

from __future__ import annotations

import pytest

from runtime import Gemini, LlmAgent, RunConfig, StreamingMode, ToolContext
from tests.gemini_server import GeminiServer, function_call_part, gemini_server  # noqa: F401 - fixture
from tests.rt_helpers import new_runner, send, stored, texts


def get_weather(city: str, tool_context: ToolContext) -> dict:
    """Current weather in a city.

    Args:
      city: The city's name.
    """
    tool_context.state["user:last_city"] = city
    return {"city": city, "forecast": "sunny", "celsius": 24}


def agent_for(server: GeminiServer) -> LlmAgent:
    return LlmAgent(
        name="forecaster",
        description="Answers weather questions.",
        model=Gemini(model="gemini-2.5-flash", api_key="test-key", base_url=server.url),
        instruction="You help {name} with the weather.",
        tools=[get_weather],
    )


async def test_tool_calling_conversation_through_the_sdk(gemini_server: GeminiServer):
    gemini_server.reply_function_call("get_weather", {"city": "Paris"})  # Gemini gives no call id here
    gemini_server.reply_text("It is sunny and 24 °C in Paris.")
    runner = await new_runner(agent_for(gemini_server), state={"name": "Ada"})

    events = await send(runner, "Weather in Paris?")

    assert texts(events) == ["It is sunny and 24 °C in Paris."]
    call = events[0].get_function_calls()[0]
    assert call.id.startswith("adk-") and events[1].get_function_responses()[0].id == call.id
    first, second = gemini_server.requests
    assert first.model == "gemini-2.5-flash" and not first.streaming
    system = first.body["systemInstruction"]["parts"][0]["text"]
    assert system.startswith("You help Ada with the weather.")
    [declaration] = first.body["tools"][0]["functionDeclarations"]
    assert declaration["name"] == "get_weather"
    # google-adk 2.13's declaration: the JSON schema of the parameters, the docstring as description
    assert declaration["parameters_json_schema"]["properties"]["city"] == {"title": "City", "type": "string"}
    assert "city: The city's name." in declaration["description"]
    # The second call carries the conversation: question, call, result (without runtime ids).
    contents = second.body["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[1]["parts"][0]["functionCall"] == {"name": "get_weather", "args": {"city": "Paris"}}
    result = contents[2]["parts"][0]["functionResponse"]
    assert result["name"] == "get_weather" and "id" not in result
    assert result["response"] == {"city": "Paris", "forecast": "sunny", "celsius": 24}
    session = await stored(runner)
    assert session.state["user:last_city"] == "Paris"
    assert [e.usage_metadata is not None for e in session.events[1:]] == [True, False, True]


async def test_streaming_conversation_stores_only_the_aggregated_turns(gemini_server: GeminiServer):
    gemini_server.reply_stream(["Let me ", "check. ", function_call_part("get_weather", {"city": "Oslo"})])
    gemini_server.reply_stream(["Oslo is ", "sunny ", "today."])
    runner = await new_runner(agent_for(gemini_server), state={"name": "Ada"})

    events = await send(runner, "Weather in Oslo?", run_config=RunConfig(streaming_mode=StreamingMode.SSE))

    partial = [e for e in events if e.partial]
    assert [e.text() for e in partial if e.text()] == ["Let me ", "check. ", "Oslo is ", "sunny ", "today."]
    session = await stored(runner)
    stored_events = session.events[1:]
    assert not any(e.partial for e in stored_events)
    call_turn, result, answer = stored_events
    assert call_turn.text() == "Let me check. " and call_turn.get_function_calls()[0].name == "get_weather"
    assert result.get_function_responses()[0].response["city"] == "Oslo"
    assert answer.text() == "Oslo is sunny today."
    assert all(r.streaming for r in gemini_server.requests)


async def test_model_http_error_surfaces_and_nothing_half_done_is_stored(gemini_server: GeminiServer):
    from google.genai import errors

    gemini_server.reply_error(500, "backend exploded")
    runner = await new_runner(agent_for(gemini_server), state={"name": "Ada"})
    with pytest.raises(errors.APIError) as raised:
        await send(runner, "Weather?")
    # Nothing half-done: the message, then only the record of the failure (as google-adk 2.13
    # records it, with the API's own status as the code), no model turn.
    events = (await stored(runner)).events
    assert [(e.author, e.content is None) for e in events] == [("user", False), ("forecaster", True)]
    assert events[-1].error_code == raised.value.status and raised.value.status  # e.g. "INTERNAL"
    assert "backend exploded" in events[-1].error_message
