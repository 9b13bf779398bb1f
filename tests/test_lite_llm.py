"""LiteLlm through the real litellm package against a local OpenAI-compatible server: text,
tool calls and their results round-trip, streaming yields partial text, and the registry sends
"provider/model" names to LiteLlm."""

from __future__ import annotations

import json

import pytest
from google.genai import types

from tests.model_extras import require_extra

require_extra("litellm")

from runtime import LlmAgent, Runner  # noqa: E402
from runtime.agents import RunConfig  # noqa: E402
from runtime.models import LLMRegistry, UnknownModelError  # noqa: E402
from runtime.models.lite_llm import LiteLlm  # noqa: E402
from runtime.run_config import StreamingMode  # noqa: E402
from runtime.sessions import session_service_from_url  # noqa: E402
from tests.chat_servers import OpenAiServer, running  # noqa: E402
from tests.rt_helpers import SESSION, USER, send, stored, texts  # noqa: E402


@pytest.fixture
def server():
    yield from running(OpenAiServer)


def get_weather(city: str, days: int = 1) -> dict:
    """Gets the forecast.

    Args:
      city: The city.
      days: How many days.
    """
    return {"city": city, "forecast": "sunny"}


async def weather_runner(server, store_url):
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name="app", user_id=USER, session_id=SESSION)
    model = LiteLlm(model="openai/gpt-test", api_base=server.url + "/v1", api_key="test-key", temperature=0.2)
    agent = LlmAgent(name="forecaster", model=model, instruction="You forecast.", tools=[get_weather])
    return Runner(agent=agent, app_name="app", session_service=sessions)


async def test_a_tool_call_and_its_result_round_trip(server, store_url):
    server.reply(calls=[("get_weather", {"city": "Oslo"})])
    server.reply(text="Sunny in Oslo.")
    runner = await weather_runner(server, store_url)
    events = await send(runner, "Weather in Oslo?")

    assert texts(events) == ["Sunny in Oslo."]
    call = events[0].get_function_calls()[0]
    assert (call.id, call.name, call.args) == ("call_1_0", "get_weather", {"city": "Oslo"})
    assert events[1].get_function_responses()[0].response == {"city": "Oslo", "forecast": "sunny"}
    assert events[-1].usage_metadata.prompt_token_count == 11

    first, second = server.requests
    assert first["model"] == "gpt-test" and first["temperature"] == 0.2
    assert first["messages"][0]["role"] == "system" and "You forecast." in first["messages"][0]["content"]
    assert first["messages"][-1] == {"role": "user", "content": "Weather in Oslo?"}
    [tool] = first["tools"]
    assert tool["function"]["name"] == "get_weather"
    assert tool["function"]["parameters"]["properties"]["city"]["type"] == "string"
    assert tool["function"]["parameters"]["required"] == ["city"]
    assistant, result = second["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == "call_1_0"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"city": "Oslo"}
    assert result["role"] == "tool" and result["tool_call_id"] == "call_1_0"
    assert json.loads(result["content"]) == {"city": "Oslo", "forecast": "sunny"}
    session = await stored(runner)
    assert [e.text() for e in session.events if e.text()] == ["Weather in Oslo?", "Sunny in Oslo."]


async def test_streaming_yields_partial_text_and_assembles_calls(server, store_url):
    server.reply(calls=[("get_weather", {"city": "Bergen", "days": 2})])
    server.reply(text="Rain in Bergen, as always.")
    runner = await weather_runner(server, store_url)
    events = await send(runner, "Bergen?", run_config=RunConfig(streaming_mode=StreamingMode.SSE))

    assert all(r["stream"] for r in server.requests)
    partials = [e.text() for e in events if e.partial]
    assert len(partials) == 2 and "".join(partials) == "Rain in Bergen, as always."
    finals = [e for e in events if not e.partial]
    assert finals[0].get_function_calls()[0].args == {"city": "Bergen", "days": 2}
    assert finals[-1].text() == "Rain in Bergen, as always." and finals[-1].usage_metadata.total_token_count == 18
    session = await stored(runner)
    assert not any(e.partial for e in session.events)


async def test_an_http_error_from_the_provider_surfaces_as_litellms_error(server, store_url):
    litellm = require_extra("litellm")
    server.reply(status=400)
    runner = await weather_runner(server, store_url)
    with pytest.raises(litellm.exceptions.BadRequestError):
        await send(runner, "Weather?")


def test_the_registry_resolves_provider_names_through_litellm():
    assert LLMRegistry.resolve("openai/gpt-4o") is LiteLlm
    assert LLMRegistry.resolve("ollama_chat/llama3") is LiteLlm
    assert LLMRegistry.resolve("perplexity/sonar") is LiteLlm  # a provider only LiteLLM knows
    model = LLMRegistry.new_llm("anthropic/claude-sonnet-4")
    assert isinstance(model, LiteLlm) and model.model == "anthropic/claude-sonnet-4"
    with pytest.raises(UnknownModelError, match="litellm"):
        LLMRegistry.resolve("nosuchprovider/model")


def test_adks_package_export_leads_to_the_same_class():
    import runtime.models

    assert runtime.models.LiteLlm is LiteLlm


def test_a_model_as_a_string_in_an_agent_resolves_to_lite_llm():
    assert isinstance(LlmAgent(name="a", model="openai/gpt-4o").canonical_model, LiteLlm)


async def test_gemini_built_in_tools_are_refused_before_the_call(server):
    from runtime.models import LlmRequest
    from domain.errors import InvalidArgumentError

    request = LlmRequest(model="openai/gpt-test",
                         config=types.GenerateContentConfig(tools=[types.Tool(google_search=types.GoogleSearch())]))
    with pytest.raises(InvalidArgumentError, match="only Gemini runs"):
        async for _ in LiteLlm(model="openai/gpt-test", api_base=server.url + "/v1").generate_content_async(request):
            pass
    assert server.requests == []
