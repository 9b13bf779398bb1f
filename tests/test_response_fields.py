"""Every field Gemini answers with reaches the events and the store, as google-adk 2.13 keeps it:
avg_logprobs, logprobs_result, citation and grounding metadata, usage details, model_version.
Through the real google-genai client against the local Gemini-protocol server, on every store."""

from __future__ import annotations

import pytest
from google.genai import types

from runtime import Gemini, LlmAgent, Runner
from runtime.run_config import RunConfig, StreamingMode
from runtime.sessions import session_service_from_url
from tests.gemini_server import GeminiServer, gemini_server, response_json, text_part  # noqa: F401 - fixture

APP, USER = "fields", "u"

CANDIDATE_EXTRAS = {
    "avgLogprobs": -0.75,
    "logprobsResult": {"chosenCandidates": [{"token": "Hi", "logProbability": -0.75}]},
    "citationMetadata": {"citationSources": [{"uri": "https://example.com/source", "startIndex": 0, "endIndex": 2}]},
    "groundingMetadata": {"webSearchQueries": ["greeting"]},
}
USAGE = {
    "promptTokenCount": 12, "candidatesTokenCount": 3, "totalTokenCount": 40, "thoughtsTokenCount": 25,
    "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 12}], "trafficType": "ON_DEMAND",
}


def _answer() -> dict:
    body = response_json([text_part("Hi")], usage_metadata=USAGE, model_version="gemini-2.5-flash-001")
    body["candidates"][0].update(CANDIDATE_EXTRAS)
    return body


def _assert_fields(event) -> None:
    assert event.avg_logprobs == -0.75
    assert event.logprobs_result == {"chosen_candidates": [{"token": "Hi", "log_probability": -0.75}]}
    assert event.citation_metadata.citations[0].uri == "https://example.com/source"
    assert event.grounding_metadata.web_search_queries == ["greeting"]
    assert event.usage_metadata.thoughts_token_count == 25
    assert event.usage_metadata.prompt_tokens_details[0].token_count == 12
    assert event.model_version == "gemini-2.5-flash-001"


@pytest.mark.parametrize("streaming", [False, True], ids=["whole", "sse"])
async def test_gemini_response_fields_are_kept_on_the_event_and_in_the_store(gemini_server, store_url, streaming):
    if streaming:
        body = _answer()
        gemini_server.reply_stream([body])
    else:
        gemini_server.reply(_answer())
    agent = LlmAgent(name="greeter", model=Gemini(model="gemini-2.5-flash", api_key="k", base_url=gemini_server.url))
    sessions = session_service_from_url(store_url)
    runner = Runner(app_name=APP, agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name=APP, user_id=USER)
    config = RunConfig(streaming_mode=StreamingMode.SSE if streaming else StreamingMode.NONE)
    events = [e async for e in runner.run_async(user_id=USER, session_id=session.id, run_config=config,
                                                new_message=types.UserContent(parts=[types.Part(text="hello")]))]
    final = [e for e in events if not e.partial]
    assert [e.text() for e in final] == ["Hi"]
    if streaming:
        # A stream's final event carries what google-adk's aggregate keeps (citations, grounding, usage).
        assert final[0].citation_metadata.citations[0].uri == "https://example.com/source"
        assert final[0].usage_metadata.thoughts_token_count == 25
    else:
        _assert_fields(final[0])
        stored = await sessions.get_session(app_name=APP, user_id=USER, session_id=session.id)
        _assert_fields(stored.events[-1])  # and read back from the log
    await runner.close()
    await sessions.close()
