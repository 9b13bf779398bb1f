"""The domain's models and rules: ADK-compatible JSON, the state rules, stored payloads."""

from __future__ import annotations

import json

from google.genai import types
from hypothesis import given
from hypothesis import strategies as st

from domain import Event, EventActions, Session, State
from domain.session_log import SessionLog
from domain.state import apply_delta, split_scopes, without_temp


def test_event_round_trips_through_json_exactly():
    event = Event(
        author="agent",
        invocation_id="e-1",
        content=types.Content(
            role="model",
            parts=[
                types.Part(text="hi"),
                types.Part.from_bytes(data=b"\x00\xff\x10binary", mime_type="application/octet-stream"),
                types.Part(function_call=types.FunctionCall(id="c", name="f", args={"q": 1})),
            ],
        ),
        actions=EventActions(state_delta={"k": None, "d": {"x": [1, 2]}}, artifact_delta={"a.txt": 0}),
        long_running_tool_ids={"c"},
        usage_metadata=types.GenerateContentResponseUsageMetadata(total_token_count=9),
    )
    assert Event.model_validate_json(event.model_dump_json()) == event
    assert Event.model_validate_json(event.model_dump_json(by_alias=True)) == event
    assert Event.model_validate_json(json.dumps(event.to_json_dict())) == event


def test_adk_camel_case_aliases_are_accepted():
    event = Event.model_validate(
        {
            "author": "user",
            "invocationId": "e-9",
            "longRunningToolIds": ["t1"],
            "actions": {"stateDelta": {"a": 1}, "transferToAgent": "helper", "skipSummarization": True},
            "customMetadata": {"x": 1},
        }
    )
    assert event.invocation_id == "e-9" and event.long_running_tool_ids == {"t1"}
    assert event.actions.state_delta == {"a": 1} and event.actions.transfer_to_agent == "helper"
    assert event.id  # filled in when empty
    session = Session.model_validate({"id": "s", "appName": "a", "userId": "u", "lastUpdateTime": 1.5})
    assert session.app_name == "a" and session.last_update_time == 1.5


def test_final_response_and_function_parts():
    call = Event(author="a", content=types.Content(parts=[types.Part(function_call=types.FunctionCall(name="f", args={}))]))
    answer = Event(author="a", content=types.Content(parts=[types.Part(text="done")]))
    result = Event(author="a", content=types.Content(parts=[types.Part(function_response=types.FunctionResponse(name="f", response={}))]))
    assert not call.is_final_response() and [c.name for c in call.get_function_calls()] == ["f"]
    assert not result.is_final_response() and [r.name for r in result.get_function_responses()] == ["f"]
    assert answer.is_final_response()
    assert Event(author="a", partial=True, content=types.Content(parts=[types.Part(text="x")])).is_final_response() is False
    assert Event(author="a", long_running_tool_ids={"x"}, content=call.content).is_final_response()


def test_state_tracks_its_delta_and_reads_dirty_values():
    committed, delta = {"a": 1}, {}
    state = State(committed, delta)
    state["b"] = 2
    state["temp:t"] = 3
    assert state["b"] == 2 and state.get("temp:t") == 3 and "a" in state and state.get("zzz") is None
    assert delta == {"b": 2, "temp:t": 3} and state.has_delta()
    assert state.to_dict() == {"a": 1, "b": 2, "temp:t": 3}


deltas = st.dictionaries(
    st.sampled_from(["a", "b", "app:x", "user:y", "temp:z", "d"]),
    st.none() | st.integers() | st.dictionaries(st.sampled_from(["p", "q"]), st.integers(), max_size=2),
    max_size=4,
)


@given(st.lists(deltas, max_size=12))
def test_folding_deltas_is_plain_replacement_per_scope(sequence):
    session: dict = {}
    model: dict = {}
    for delta in sequence:
        apply_delta(session, split_scopes(delta).session)
        for key, value in delta.items():
            if ":" not in key:
                model[key] = value  # None is stored; a dict replaces, never merges
    assert session == model
    for delta in sequence:
        scoped = split_scopes(delta)
        assert set(scoped.app) | set(scoped.user) | set(scoped.session) == set(without_temp(delta))


def test_stored_payloads_carry_stable_topics_and_a_schema_version():
    from runtime.stores.application import VersionedMapper, make_transcoder

    log = SessionLog.start("app", "u", "s", {"a": 1}, 1.0)
    log.record(Event(author="user").to_json_dict())
    mapper = VersionedMapper(transcoder=make_transcoder())
    stored = [mapper.to_stored_event(e) for e in log.collect_events()]
    assert [s.topic for s in stored] == ["chronicle:SessionLog.Created", "chronicle:SessionLog.Recorded"]
    for s in stored:
        payload = json.loads(s.state)  # a person can read it
        assert payload["class_version"] == 1 and payload["digest"] and payload["chain"]
    assert json.loads(stored[1].state)["event"]["author"] == "user"
    assert [type(mapper.to_domain_event(s)).__name__ for s in stored] == ["Created", "Recorded"]
