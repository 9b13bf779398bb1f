"""Event as ADK 2.13 has it: defaults, the newer fields, the constructor shortcuts, non-JSON
actions; the new fields survive every store and the chain, and events written before them are
stored and hashed exactly as they were."""

from __future__ import annotations

import json
import logging

import pytest
from google.genai import types

from domain import chain
from domain.errors import InvalidArgumentError
from domain.events import Event, EventActions, NodeInfo
from domain.session_log import SessionLog, session_log_id
from runtime import Gemini, LlmAgent, Runner
from runtime.sessions import session_service_from_url
from runtime.sessions.verify import verify_log
from tests.gemini_server import GeminiServer, gemini_server  # noqa: F401 - fixture
from tests.rt_helpers import user_msg

# An event as Chronicle stored it before the ADK 2.13 fields existed, and its digest then.
STORED_BEFORE = {
    "id": "e-1", "invocation_id": "inv-1", "author": "shopper", "timestamp": 1750000000.25,
    "content": {"role": "model", "parts": [
        {"text": "Added."}, {"function_call": {"id": "c1", "name": "pay", "args": {"amount": 200, "ratio": 0.5}}}]},
    "actions": {"state_delta": {"cart": ["lamp"]}, "artifact_delta": {}, "requested_auth_configs": {},
                "requested_tool_confirmations": {}},
    "long_running_tool_ids": ["c1"], "usage_metadata": {"total_token_count": 15},
}
DIGEST_BEFORE = "2:ce998f3402b1673d5ac189997373ca4e0ace49cf75a942070e82b151e3c1fff2"


def test_defaults_are_adks():
    event = Event()
    assert event.author == "" and event.invocation_id == "" and event.id
    assert event.content is None and event.output is None and event.isolation_scope is None
    assert event.node_info == NodeInfo() and event.node_info.path == "" and event.node_name == ""
    assert event.actions == EventActions()


def test_constructor_shortcuts():
    event = Event(author="flow", message="hello", state={"step": 2}, route="next", node_path="wf/check@3")
    assert event.content == types.Content(role="user", parts=[types.Part(text="hello")])
    assert event.message is event.content
    assert event.actions.state_delta == {"step": 2} and event.actions.route == "next"
    assert event.node_info.path == "wf/check@3"
    assert (event.node_name, event.node_info.run_id) == ("check", "3")
    # state= goes into the actions given alongside it.
    merged = Event(actions=EventActions(escalate=True, skip_summarization=True), state={"k": 1})
    assert merged.actions.escalate and merged.actions.skip_summarization and merged.actions.state_delta == {"k": 1}
    event.message = types.Part(text="changed")
    assert event.content.parts[0].text == "changed"
    with pytest.raises(InvalidArgumentError, match="mutually exclusive"):  # ADK's words
        Event(message="a", content=types.Content(role="user", parts=[types.Part(text="b")]))
    # A dict takes the shortcuts too, and is left as it was.
    data = {"author": "flow", "message": "hi", "state": {"k": 1}}
    assert Event.model_validate(data).actions.state_delta == {"k": 1} and "message" in data


@pytest.mark.filterwarnings("ignore:Field name .message.")
def test_a_subclass_field_named_message_is_its_own():
    class Note(Event):
        message: str = ""

    note = Note(author="a", message="hello")
    assert note.message == "hello" and note.content is None
    assert Note.model_validate(note.model_dump()).message == "hello"


def test_an_event_stored_before_the_new_fields_is_stored_and_hashed_as_before():
    event = Event.model_validate(STORED_BEFORE)
    stored = event.to_json_dict()
    assert json.dumps(stored) == json.dumps(Event.model_validate_json(json.dumps(STORED_BEFORE)).to_json_dict())
    assert stored == STORED_BEFORE
    assert chain.digest(SessionLog.Recorded.TOPIC, {"event": stored}) == DIGEST_BEFORE
    assert "node_info" not in stored and "output" not in stored


def test_non_json_values_in_actions_are_written_as_their_repr(caplog):
    """As ADK: the event still serialises; the value that JSON cannot hold becomes its repr."""
    event = Event(author="a", state={"n": 1, "callback": print}, actions={"agent_state": {"fn": len}})
    with caplog.at_level(logging.WARNING, logger="chronicle.events"):
        data = json.loads(event.model_dump_json())
    assert data["actions"]["state_delta"] == {"n": 1, "callback": repr(print)}
    assert data["actions"]["agent_state"] == {"fn": repr(len)}
    assert "not JSON" in caplog.text
    assert event.actions.state_delta["callback"] is print  # the live event keeps the object


def newer_event() -> Event:
    return Event(
        invocation_id="inv-1", author="narrator",
        content=types.Content(role="model", parts=[types.Part(text="Said and cited.")]),
        output={"score": 200, "ratio": 0.5, "tags": ["a"]},
        node_info=NodeInfo(path="wf/judge@1", output_for=["wf/judge@1", "wf"], message_as_output=True),
        isolation_scope="call-7",
        citation_metadata=types.CitationMetadata(citations=[types.Citation(uri="https://example.com/a", start_index=0)]),
        input_transcription=types.Transcription(text="what did you say", finished=True),
        output_transcription=types.Transcription(text="said and cited"),
        live_session_id="live-1",
        long_running_tool_ids={"b", "a"},
        actions=EventActions(route=["left", 2], transfer_reason="better suited"),
    )


async def test_new_fields_survive_the_store_and_the_chain(store_url):
    service = session_service_from_url(store_url)
    session = await service.create_session(app_name="app", user_id="ann", session_id="s")
    event = newer_event()
    await service.append_event(session, event)
    await service.append_event(session, Event.model_validate(STORED_BEFORE))
    reread = await service.get_session(app_name="app", user_id="ann", session_id="s")
    newer, older = reread.events
    assert newer == event
    assert newer.output == {"score": 200, "ratio": 0.5, "tags": ["a"]} and type(newer.output["score"]) is int
    assert newer.node_info.output_for == ["wf/judge@1", "wf"] and newer.citation_metadata.citations[0].start_index == 0
    assert older.to_json_dict() == STORED_BEFORE
    assert verify_log(service.store, session_log_id("app", "ann", "s")) is None
    await service.close()


def pay(amount: float, note: str) -> dict:
    """Pays an amount."""
    return {"amount_type": type(amount).__name__, "amount": amount}


async def test_a_tool_call_keeps_the_numbers_the_model_sent(gemini_server: GeminiServer, store_url):
    """200 stays 200 through the real google-genai client, the tool, and every store."""
    gemini_server.reply_function_call("pay", {"amount": 200, "note": "rent"})
    gemini_server.reply_text("Paid.")
    service = session_service_from_url(store_url)
    await service.create_session(app_name="app", user_id="u", session_id="s")
    agent = LlmAgent(name="payer", model=Gemini(model="gemini-2.5-flash", api_key="k", base_url=gemini_server.url),
                     tools=[pay])
    runner = Runner(agent=agent, app_name="app", session_service=service)
    events = [e async for e in runner.run_async(user_id="u", session_id="s", new_message=user_msg("pay rent"))]
    assert events[1].get_function_responses()[0].response == {"amount_type": "int", "amount": 200}
    session = await service.get_session(app_name="app", user_id="u", session_id="s")
    args = session.events[1].get_function_calls()[0].args
    assert args == {"amount": 200, "note": "rent"} and type(args["amount"]) is int
    sent_back = gemini_server.requests[1].body["contents"][1]["parts"][0]["functionCall"]["args"]
    assert json.dumps(sent_back) == '{"amount": 200, "note": "rent"}'
    await runner.close()


def test_an_error_event_is_a_final_response():
    assert Event(author="m", error_code="SAFETY", error_message="blocked").is_final_response()
    assert not Event(author="m", error_code="SAFETY", partial=True).is_final_response()


def test_shortcuts_are_only_for_the_constructor():
    """Reading the log does not go through them (nor through Python-mode validation)."""
    stored = json.dumps({**STORED_BEFORE, "content": {"role": "user", "parts": [{"text": "hi"}]}})
    event = Event.model_validate_json(stored)
    assert event.content.parts[0].text == "hi" and event.node_info == NodeInfo()
    assert Event.model_validate({"author": "a", "node_info": {"path": "wf/x@1"}}).node_name == "x"
