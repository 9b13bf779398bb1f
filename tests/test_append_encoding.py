"""The append path writes the log exactly as before it was made faster (issue 33): the same
digests, the same stored bytes, chains that verify on every store. The pinned values below were
computed by the code before that change; a store written then and a store written now cannot be
told apart, so stores written before still verify and new events verify by the same rules."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime, timezone

import pytest
from google.genai import types
from pydantic_core import to_json

from domain.chained import ENCODED_PAYLOAD
from domain.errors import InvalidArgumentError
from domain.events import Event, EventActions
from domain.session_log import SessionLog, session_log_id
from runtime.operations.audit import logs_to_check, verify_store
from runtime.sessions import session_service_from_url
from runtime.stores.application import VersionedMapper, make_transcoder

PINNED_DIGEST = "2:9c6aa75da5561f1efae0bc4be8e2974c8592c4569233e4f9ebb9e36a50cecad3"
PINNED_EVENT_JSON = (
    '{"id":"e-pinned","invocation_id":"inv-1","author":"agent","content":{"parts":[{"text":"Grüße, 世界"},'
    '{"function_call":{"id":"c1","args":{"b":[1,2.5,null],"a":{"z":true}},"name":"f"}}],"role":"model"},'
    '"actions":{"state_delta":{"turn":3,"user:seen":{"k":"v"},"n":null},"artifact_delta":{"f.txt":2},'
    '"requested_auth_configs":{},"requested_tool_confirmations":{}},"timestamp":1700000000.25,'
    '"long_running_tool_ids":["c1"]}'
)
# The Recorded event at version 2 after a link "prev", stored at a fixed time.
PINNED_STORED = (
    '{"timestamp":{"_type_":"datetime_iso","_data_":"2024-01-02T03:04:05.678901+00:00"},'
    f'"digest":"{PINNED_DIGEST}",'
    '"chain":"57146afb72c6821ac95c80628888025bf581a915558fd5d89481ed38b095f3cb",'
    f'"event":{PINNED_EVENT_JSON},"class_version":1}}'
)


def pinned_event() -> Event:
    return Event(
        id="e-pinned", invocation_id="inv-1", author="agent", timestamp=1700000000.25,
        content=types.Content(role="model", parts=[
            types.Part(text="Grüße, 世界"),
            types.Part(function_call=types.FunctionCall(id="c1", name="f", args={"b": [1, 2.5, None], "a": {"z": True}})),
        ]),
        actions=EventActions(state_delta={"turn": 3, "user:seen": {"k": "v"}, "n": None}, artifact_delta={"f.txt": 2}),
        long_running_tool_ids={"c1"},
    )


def _recorded_at(log: SessionLog, moment: datetime) -> SessionLog.Recorded:
    [recorded] = [e for e in log.collect_events() if isinstance(e, SessionLog.Recorded)]
    object.__setattr__(recorded, "timestamp", moment)  # the one attribute that is the time of writing
    return recorded


def test_a_recorded_event_keeps_its_digest_and_stored_bytes():
    payload = pinned_event().checked_json_dict()
    assert to_json(payload).decode() == PINNED_EVENT_JSON
    assert SessionLog.recorded_digest(payload) == PINNED_DIGEST

    # Through the aggregate (which hands its digest's bytes to the store) at the pinned place.
    log = SessionLog.start("app", "u", "s", {}, 1.0)
    log.chain_head = "prev"
    log.record(payload)
    recorded = _recorded_at(log, datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=timezone.utc))
    assert recorded.digest == PINNED_DIGEST
    assert getattr(recorded, ENCODED_PAYLOAD) == b'{"event":' + PINNED_EVENT_JSON.encode() + b"}"
    stored = VersionedMapper(transcoder=make_transcoder()).to_stored_event(recorded)
    assert stored.state.decode() == PINNED_STORED


@pytest.mark.parametrize("make_payload", [
    lambda: {"deleted_time": 12.5},  # one attribute: written from the digest's bytes
    lambda: {"event": {"timestamp": 2.0, "k": "é", "nested": {"b": 1, "a": [None, 1.5]}}},
])
def test_a_payload_written_from_its_digests_bytes_is_what_encoding_it_writes(make_payload):
    """The stored bytes made from the digest's encoding are byte for byte those of encoding the
    whole state (the path every other event takes)."""
    log = SessionLog.start("app", "u", "s", {}, 1.0)
    log.collect_events()
    payload = make_payload()
    log._append(SessionLog.Deleted if "deleted_time" in payload else SessionLog.Recorded, **payload)
    [event] = log.collect_events()
    mapper = VersionedMapper(transcoder=make_transcoder())
    spliced = mapper.to_stored_event(event).state
    object.__delattr__(event, ENCODED_PAYLOAD)
    assert mapper.to_stored_event(event).state == spliced


def test_events_appended_now_verify_on_every_store(store_url):
    async def scenario():
        sessions = session_service_from_url(store_url)
        try:
            session = await sessions.create_session(app_name="app", user_id="u", state={"a": 1})
            await sessions.append_event(session, pinned_event())
            for i in range(3):
                await sessions.append_event(session, Event(
                    author="user", invocation_id=f"inv-{i + 2}",
                    content=types.Content(role="user", parts=[types.Part(text=f"turn {i}")]),
                    actions=EventActions(state_delta={"turn": i, "app:seen": i, "temp:x": object()}),
                ))
            store = sessions.store
            log_id = session_log_id("app", "u", session.id)
            rows = store.recorder.select_events(log_id)
            stored = [r for r in rows if r.topic == SessionLog.Recorded.TOPIC]
            assert b'"digest":"%s"' % PINNED_DIGEST.encode() in stored[0].state
            assert b'"event":%s,"class_version":1}' % PINNED_EVENT_JSON.encode() in stored[0].state
            report = verify_store(store, logs_to_check(store))
            assert report.ok and report.events == 5, report.broken
            loaded = await sessions.get_session(app_name="app", user_id="u", session_id=session.id)
            assert loaded.events[0].model_dump() == pinned_event().model_dump()
            assert loaded.state == {"a": 1, "turn": 2, "user:seen": {"k": "v"}, "n": None, "app:seen": 2}
        finally:
            await sessions.close()

    asyncio.run(scenario())


def test_an_event_of_the_log_is_not_changed_by_the_bytes_it_carries():
    """What an event carries for the store is not part of it: equal events stay equal."""
    log = SessionLog.start("app", "u", "s", {}, 1.0)
    log.collect_events()
    log.record({"id": "x", "timestamp": 1.0, "actions": {}})
    [event] = log.collect_events()
    twin = SessionLog.Recorded(
        originator_id=event.originator_id, originator_version=event.originator_version,
        timestamp=event.timestamp, digest=event.digest, chain=event.chain, event=event.event,
    )
    assert twin == event and repr(twin) == repr(event)
    assert uuid.UUID(str(event.originator_id)) == log.id


@pytest.mark.parametrize("delta, message", [
    ({"": 1}, "state_delta keys must be non-empty strings, got ''"),
    ({1: "x"}, "state_delta keys must be non-empty strings, got 1"),
    ({"k\x00": 1}, "state_delta key 'k\\x00' cannot be stored: it contains a NUL character."),
    ({"k": {1, 2}}, "state_delta['k'] cannot be stored: set is not a JSON value"),
    ({"k": {"n": float("nan")}}, "state_delta['k']['n'] cannot be stored: nan is not a finite number."),
    ({"k": 2**63}, "state_delta['k'] cannot be stored: the integer with 19 digits is outside the 64-bit signed range."),
])
def test_a_bad_state_delta_is_refused_with_the_words_it_had_before(delta, message):
    """A delta the one-walk check does not pass is looked at key by key, for the same message."""
    async def scenario():
        sessions = session_service_from_url("memory://")
        session = await sessions.create_session(app_name="app", user_id="u")
        event = Event(author="user")
        event.actions.state_delta = delta  # as a caller may change it after the event was built
        with pytest.raises(InvalidArgumentError) as refused:
            await sessions.append_event(session, event)
        assert str(refused.value).startswith(message)
        assert (await sessions.get_session(app_name="app", user_id="u", session_id=session.id)).events == []

    asyncio.run(scenario())


def test_a_temp_value_need_not_be_json():
    async def scenario():
        sessions = session_service_from_url("memory://")
        session = await sessions.create_session(app_name="app", user_id="u")
        marker = object()
        await sessions.append_event(session, Event(author="user", actions=EventActions(state_delta={"temp:o": marker, "k": 1})))
        assert session.state["temp:o"] is marker and session.state["k"] == 1

    asyncio.run(scenario())


def test_a_log_built_by_appends_is_the_log_its_events_replay():
    """The log applies the events it appends itself (the library's ``mutate`` is what replays
    them): replaying what it recorded gives the same log, and an event built without its
    constructor has the constructor's attributes, in its order (the stored JSON keeps it)."""
    log = SessionLog.start("app", "u", "s", {"a": 1}, 1.0)
    log.record({"id": "x", "timestamp": 2.0, "actions": {"state_delta": {"b": 2}, "artifact_delta": {"f": 1}}})
    log.note_interrupted("inv-1", ["c1"], 3.0)
    log.delete(4.0)
    events = log.collect_events()
    for event in events[1:]:
        attributes = {k: v for k, v in vars(event).items() if k != ENCODED_PAYLOAD}
        assert list(vars(type(event)(**attributes))) == list(attributes)
    replayed = None
    for event in events:
        replayed = event.mutate(replayed)
    assert vars(replayed) == vars(log)
    assert (log.version, log.state, log.artifacts, log.deleted) == (4, {"a": 1, "b": 2}, {"f": 1}, True)
