"""AnthropicLlm through the real anthropic SDK against a local server that speaks Anthropic's
messages API: text, tool_use and tool_result round-trip, streaming yields partial text and the
SDK's assembled tool input."""

from __future__ import annotations

import json

import pytest

from tests.model_extras import require_extra

anthropic = require_extra("anthropic")

from runtime import LlmAgent, Runner  # noqa: E402
from runtime.agents import RunConfig  # noqa: E402
from runtime.models import LLMRegistry, LlmRequest, UnknownModelError  # noqa: E402
from runtime.models.anthropic_llm import AnthropicLlm, Claude, ClaudeOnVertexUnavailableError  # noqa: E402
from runtime.run_config import StreamingMode  # noqa: E402
from runtime.sessions import session_service_from_url  # noqa: E402
from tests.chat_servers import AnthropicServer, running  # noqa: E402
from tests.rt_helpers import SESSION, USER, send, stored, texts  # noqa: E402


@pytest.fixture
def server():
    yield from running(AnthropicServer)


def book_table(restaurant: str, people: int) -> dict:
    """Books a table.

    Args:
      restaurant: Where.
      people: How many.
    """
    return {"booked": True, "restaurant": restaurant, "people": people}


async def booking_runner(server, store_url, **model_fields):
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name="app", user_id=USER, session_id=SESSION)
    client = anthropic.AsyncAnthropic(base_url=server.url, api_key="test-key", max_retries=0)
    model = AnthropicLlm(model="claude-test-1", client=client, **model_fields)
    agent = LlmAgent(name="host", model=model, instruction="You book tables.", tools=[book_table])
    return Runner(agent=agent, app_name="app", session_service=sessions)


async def test_tool_use_and_its_result_round_trip(server, store_url):
    server.reply(text="Let me book.", calls=[("book_table", {"restaurant": "Maaemo", "people": 2})])
    server.reply(text="Booked for two at Maaemo.")
    runner = await booking_runner(server, store_url, max_tokens=512)
    events = await send(runner, "A table for two at Maaemo")

    assert texts(events) == ["Let me book.", "Booked for two at Maaemo."]
    call = events[0].get_function_calls()[0]
    assert (call.id, call.name, call.args) == ("toolu_1_0", "book_table", {"restaurant": "Maaemo", "people": 2})
    assert events[-1].usage_metadata.prompt_token_count == 13

    first, second = server.requests
    assert first["model"] == "claude-test-1" and first["max_tokens"] == 512
    assert "You book tables." in first["system"]
    assert first["messages"] == [{"role": "user", "content": [{"type": "text", "text": "A table for two at Maaemo"}]}]
    [tool] = first["tools"]
    assert tool["name"] == "book_table" and tool["input_schema"]["required"] == ["restaurant", "people"]
    assert tool["input_schema"]["properties"]["people"]["type"] == "integer"
    assistant, result = second["messages"][-2:]
    assert assistant == {"role": "assistant", "content": [
        {"type": "text", "text": "Let me book."},
        {"type": "tool_use", "id": "toolu_1_0", "name": "book_table", "input": {"restaurant": "Maaemo", "people": 2}}]}
    [block] = result["content"]
    assert result["role"] == "user" and block["type"] == "tool_result" and block["tool_use_id"] == "toolu_1_0"
    assert json.loads(block["content"]) == {"booked": True, "restaurant": "Maaemo", "people": 2}
    session = await stored(runner)
    assert [e.text() for e in session.events if e.text()][-1] == "Booked for two at Maaemo."


async def test_streaming_yields_partial_text_and_the_assembled_tool_input(server, store_url):
    server.reply(calls=[("book_table", {"restaurant": "Kontrast", "people": 4})])
    server.reply(text="Four seats at Kontrast are yours.")
    runner = await booking_runner(server, store_url)
    events = await send(runner, "Kontrast, four people", run_config=RunConfig(streaming_mode=StreamingMode.SSE))

    assert all(r["stream"] for r in server.requests)
    partials = [e.text() for e in events if e.partial]
    assert len(partials) == 2 and "".join(partials) == "Four seats at Kontrast are yours."
    finals = [e for e in events if not e.partial]
    assert finals[0].get_function_calls()[0].args == {"restaurant": "Kontrast", "people": 4}
    assert finals[-1].text() == "Four seats at Kontrast are yours." and finals[-1].usage_metadata.candidates_token_count == 5
    assert not any(e.partial for e in (await stored(runner)).events)


async def test_an_http_error_surfaces_as_the_sdks_error(server, store_url):
    server.reply(status=400)
    runner = await booking_runner(server, store_url)
    with pytest.raises(anthropic.BadRequestError):
        await send(runner, "A table?")


def test_adks_package_exports_lead_to_the_same_classes():
    import runtime.models

    assert runtime.models.AnthropicLlm is AnthropicLlm and runtime.models.Claude is Claude


async def test_claude_on_vertex_is_refused_at_use_and_bare_claude_names_point_to_anthropic_llm():
    with pytest.raises(ClaudeOnVertexUnavailableError, match="Vertex AI"):
        async for _ in Claude().generate_content_async(LlmRequest(model="claude-3-5-sonnet")):
            pass
    with pytest.raises(UnknownModelError, match="AnthropicLlm"):
        LLMRegistry.resolve("claude-sonnet-4")
