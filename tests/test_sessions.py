"""The session services' ADK contract, run once per store (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime

import pytest
from google.genai import types

from domain import Event, EventActions, InvalidArgumentError
from domain.session_log import session_log_id
from runtime.sessions import (
    AlreadyExistsError,
    GetSessionConfig,
    SessionNotFoundError,
    StaleSessionError,
    session_service_from_url,
)


def text_event(text: str, author: str = "user", delta: dict | None = None, **kw) -> Event:
    return Event(
        author=author,
        invocation_id=kw.pop("invocation_id", "e-1"),
        content=types.Content(role="user" if author == "user" else "model", parts=[types.Part(text=text)]),
        actions=EventActions(state_delta=delta or {}),
        **kw,
    )


async def test_create_and_get_round_trip(service):
    created = await service.create_session(app_name="app", user_id="u1", state={"topic": "tea"})
    assert created.id and created.state == {"topic": "tea"} and created.events == []
    loaded = await service.get_session(app_name="app", user_id="u1", session_id=created.id)
    assert loaded.id == created.id and loaded.state == {"topic": "tea"}
    assert loaded.last_update_time == pytest.approx(created.last_update_time)


async def test_existing_id_is_refused(service):
    await service.create_session(app_name="app", user_id="u1", session_id="s1")
    with pytest.raises(AlreadyExistsError):
        await service.create_session(app_name="app", user_id="u1", session_id="s1")
    # the same id under another user is another session
    await service.create_session(app_name="app", user_id="u2", session_id="s1")


async def test_other_users_and_apps_never_see_a_session(service):
    s = await service.create_session(app_name="app", user_id="u1", session_id="s1")
    assert await service.get_session(app_name="app", user_id="u2", session_id=s.id) is None
    assert await service.get_session(app_name="other", user_id="u1", session_id=s.id) is None
    assert await service.get_session(app_name="app", user_id="u1", session_id="nope") is None


async def test_initial_state_is_split_into_scopes(service):
    await service.create_session(
        app_name="app", user_id="u1", session_id="a",
        state={"app:plan": "pro", "user:name": "Ann", "mood": "ok", "temp:scratch": 1},
    )
    same_user = await service.create_session(app_name="app", user_id="u1", session_id="b")
    other_user = await service.create_session(app_name="app", user_id="u2", session_id="c")
    assert same_user.state == {"app:plan": "pro", "user:name": "Ann"}
    assert other_user.state == {"app:plan": "pro"}
    first = await service.get_session(app_name="app", user_id="u1", session_id="a")
    assert first.state == {"app:plan": "pro", "user:name": "Ann", "mood": "ok"}


async def test_append_event_applies_state_rules(service):
    s = await service.create_session(app_name="app", user_id="u1", state={"cfg": {"a": 1, "b": 2}})
    event = text_event("hi", delta={"cfg": {"c": 3}, "gone": None, "temp:t": "x", "user:lang": "fr", "app:v": 2})
    returned = await service.append_event(s, event)
    # temp: is visible to the running invocation, but removed from the event and never stored
    assert s.state["temp:t"] == "x"
    assert "temp:t" not in returned.actions.state_delta
    assert s.events[-1].id == event.id and s.last_update_time == event.timestamp
    loaded = await service.get_session(app_name="app", user_id="u1", session_id=s.id)
    assert loaded.state == {"cfg": {"c": 3}, "gone": None, "user:lang": "fr", "app:v": 2}
    assert "gone" in loaded.state and loaded.state.get("gone") is None
    assert [e.id for e in loaded.events] == [event.id]
    assert "temp:t" not in loaded.events[0].actions.state_delta
    other = await service.create_session(app_name="app", user_id="u2")
    assert other.state == {"app:v": 2}


async def test_events_round_trip_exactly(service):
    s = await service.create_session(app_name="app", user_id="u1")
    event = Event(
        author="model",
        invocation_id="e-x",
        content=types.Content(
            role="model",
            parts=[
                types.Part(text="look"),
                types.Part.from_bytes(data=bytes(range(256)), mime_type="image/png"),
                types.Part(function_call=types.FunctionCall(id="c1", name="f", args={"x": [1, 2]})),
            ],
        ),
        usage_metadata=types.GenerateContentResponseUsageMetadata(prompt_token_count=3, total_token_count=5),
        long_running_tool_ids={"c1"},
        custom_metadata={"k": "v"},
        branch="root.sub",
    )
    await service.append_event(s, event)
    loaded = await service.get_session(app_name="app", user_id="u1", session_id=s.id)
    assert loaded.events == [event]


async def test_partial_events_are_not_stored(service):
    s = await service.create_session(app_name="app", user_id="u1")
    partial = text_event("chunk", author="model", partial=True)
    assert await service.append_event(s, partial) is partial
    loaded = await service.get_session(app_name="app", user_id="u1", session_id=s.id)
    assert loaded.events == [] and s.events == []


async def test_recent_events_and_after_timestamp(service):
    s = await service.create_session(app_name="app", user_id="u1")
    base = time.time()
    for i in range(150):
        await service.append_event(s, text_event(f"m{i}", timestamp=base + i, invocation_id=f"e-{i}"))
    recent = await service.get_session(
        app_name="app", user_id="u1", session_id=s.id, config=GetSessionConfig(num_recent_events=20)
    )
    assert [e.text() for e in recent.events] == [f"m{i}" for i in range(130, 150)]
    after = await service.get_session(
        app_name="app", user_id="u1", session_id=s.id, config=GetSessionConfig(after_timestamp=base + 100)
    )
    assert [e.text() for e in after.events] == [f"m{i}" for i in range(100, 150)]
    both = await service.get_session(
        app_name="app", user_id="u1", session_id=s.id,
        config=GetSessionConfig(after_timestamp=base + 140, num_recent_events=5),
    )
    assert [e.text() for e in both.events] == [f"m{i}" for i in range(145, 150)]
    everything = await service.get_session(app_name="app", user_id="u1", session_id=s.id)
    assert len(everything.events) == 150


async def test_list_sessions(service):
    a = await service.create_session(app_name="app", user_id="u1", session_id="a", state={"x": 1})
    b = await service.create_session(app_name="app", user_id="u2", session_id="b")
    c = await service.create_session(app_name="app", user_id="u1", session_id="c")
    await service.create_session(app_name="other", user_id="u1", session_id="d")
    await service.append_event(a, text_event("newest"))
    listed = (await service.list_sessions(app_name="app")).sessions
    assert [x.id for x in listed] == ["b", "c", "a"]  # oldest first by last update
    assert all(x.events == [] for x in listed)
    assert listed[2].state == {"x": 1}
    mine = (await service.list_sessions(app_name="app", user_id="u1")).sessions
    assert [x.id for x in mine] == ["c", "a"]
    await service.delete_session(app_name="app", user_id="u2", session_id=b.id)
    assert [x.id for x in (await service.list_sessions(app_name="app")).sessions] == ["c", "a"]
    assert c.id == "c"


async def test_delete_keeps_scoped_state(service):
    s = await service.create_session(app_name="app", user_id="u1", state={"user:name": "Ann", "app:v": 1, "k": 1})
    await service.delete_session(app_name="app", user_id="u1", session_id=s.id)
    assert await service.get_session(app_name="app", user_id="u1", session_id=s.id) is None
    with pytest.raises(SessionNotFoundError):
        await service.append_event(s, text_event("late"))
    fresh = await service.create_session(app_name="app", user_id="u1")
    assert fresh.state == {"user:name": "Ann", "app:v": 1}
    await service.delete_session(app_name="app", user_id="u1", session_id="never-existed")


async def test_append_to_unknown_session_raises(service):
    from domain import Session

    ghost = Session(id="ghost", app_name="app", user_id="u1")
    with pytest.raises(SessionNotFoundError):
        await service.append_event(ghost, text_event("boo"))


async def test_same_event_id_is_stored_once(service):
    s = await service.create_session(app_name="app", user_id="u1")
    event = text_event("once", delta={"n": 1})
    await service.append_event(s, event)
    again = await service.append_event(s, event.model_copy(deep=True))
    assert again.id == event.id
    # a retry from a copy that never saw the first append's result
    stale_copy = await service.get_session(app_name="app", user_id="u1", session_id=s.id)
    stale_copy._version = 1
    await service.append_event(stale_copy, event.model_copy(deep=True))
    loaded = await service.get_session(app_name="app", user_id="u1", session_id=s.id)
    assert [e.id for e in loaded.events] == [event.id]


async def test_stale_writer_gets_stale_session_error(service):
    s = await service.create_session(app_name="app", user_id="u1")
    first = await service.get_session(app_name="app", user_id="u1", session_id=s.id)
    second = await service.get_session(app_name="app", user_id="u1", session_id=s.id)
    await service.append_event(first, text_event("first", delta={"who": "first"}))
    with pytest.raises(StaleSessionError) as info:
        await service.append_event(second, text_event("second", delta={"who": "second"}))
    assert info.value.expected_version == 1 and info.value.actual_version == 2
    assert "version 1" in str(info.value) and "version 2" in str(info.value)
    loaded = await service.get_session(app_name="app", user_id="u1", session_id=s.id)
    assert [e.text() for e in loaded.events] == ["first"] and loaded.state == {"who": "first"}


async def test_concurrent_writers_on_one_session(service):
    s = await service.create_session(app_name="app", user_id="u1")
    copies = [await service.get_session(app_name="app", user_id="u1", session_id=s.id) for _ in range(4)]
    results = await asyncio.gather(
        *(service.append_event(c, text_event(f"w{i}")) for i, c in enumerate(copies)), return_exceptions=True
    )
    winners = [r for r in results if isinstance(r, Event)]
    assert len(winners) == 1
    assert all(isinstance(r, StaleSessionError) for r in results if not isinstance(r, Event))
    loaded = await service.get_session(app_name="app", user_id="u1", session_id=s.id)
    assert [e.id for e in loaded.events] == [winners[0].id]


async def test_concurrent_writers_on_many_sessions_lose_nothing(service):
    sessions = [await service.create_session(app_name="app", user_id=f"u{i}") for i in range(8)]

    async def write(session, n):
        for j in range(n):
            await service.append_event(session, text_event(f"{j}", delta={"count": j, "user:seen": j}))

    await asyncio.gather(*(write(s, 15) for s in sessions))
    for s in sessions:
        loaded = await service.get_session(app_name="app", user_id=s.user_id, session_id=s.id)
        assert [e.text() for e in loaded.events] == [str(j) for j in range(15)]
        assert loaded.state == {"count": 14, "user:seen": 14}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"app_name": "", "user_id": "u"},
        {"app_name": "bad app", "user_id": "u"},
        {"app_name": "app", "user_id": ""},
        {"app_name": "app", "user_id": "../etc"},
        {"app_name": "app", "user_id": "u", "session_id": "a/b"},
        {"app_name": "app", "user_id": "u", "state": {"obj": object()}},
        {"app_name": "app", "user_id": "u", "state": {"nan": float("nan")}},
        {"app_name": "app", "user_id": "u", "state": "not a dict"},
    ],
)
async def test_bad_input_is_refused_before_writing(service, kwargs):
    with pytest.raises(InvalidArgumentError):
        await service.create_session(**kwargs)
    assert (await service.list_sessions(app_name="app")).sessions == []


async def test_bad_events_are_refused_before_writing(service):
    s = await service.create_session(app_name="app", user_id="u1")
    with pytest.raises(InvalidArgumentError):
        await service.append_event(s, {"author": "user"})  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        await service.append_event(s, text_event("x", delta={"bad": {1, 2}}))
    loaded = await service.get_session(app_name="app", user_id="u1", session_id=s.id)
    assert loaded.events == [] and s.events == []
    # the session object is still usable afterwards
    await service.append_event(s, text_event("fine"))


async def test_long_sessions_reload_from_snapshots(store_url):
    writer = session_service_from_url(store_url)
    s = await writer.create_session(app_name="app", user_id="u1", state={"start": True})
    for i in range(250):
        await writer.append_event(s, text_event(f"m{i}", delta={"i": i, f"k{i % 7}": i}, invocation_id=f"e-{i}"))
    expected = await writer.get_session(app_name="app", user_id="u1", session_id=s.id)
    if store_url != "memory://":
        reader = session_service_from_url(store_url)  # a cold cache: snapshot + tail
        loaded = await reader.get_session(app_name="app", user_id="u1", session_id=s.id)
        assert loaded.state == expected.state == s.state
        assert [e.id for e in loaded.events] == [e.id for e in expected.events]
        await reader.close()
    await writer.close()


async def test_a_snapshot_decodes_to_exactly_the_log_it_was_taken_from(service):
    s = await service.create_session(app_name="app", user_id="u1", state={"start": {"nested": [1, None]}})
    for i in range(99):  # genesis + 99 events: the snapshot at version 100 is taken
        await service.append_event(s, text_event(f"m{i}", delta={"i": i, "user:u": i}, invocation_id=f"e-{i // 3}"))
    application = service.store.application
    log = application.repository.get(session_log_id("app", "u1", s.id))
    (stored,) = application.snapshots.recorder.select_events(log.id, desc=True, limit=1)
    assert stored.originator_version == log.version == 100
    rebuilt = application.mapper.to_domain_event(stored).mutate(None)
    expected = {k: v for k, v in vars(log).items() if k != "_pending_events"}
    assert {k: v for k, v in vars(rebuilt).items() if k != "_pending_events"} == expected
    assert isinstance(rebuilt.created_on, datetime) and rebuilt.modified_on == log.modified_on


async def test_operators_can_list_every_session_across_apps(service):
    await service.create_session(app_name="a1", user_id="u1", session_id="x")
    await service.create_session(app_name="a2", user_id="u2", session_id="y")
    await service.delete_session(app_name="a2", user_id="u2", session_id="y")
    rows = service.store.recorder.select_catalog()
    assert [(r.app_name, r.session_id, r.deleted) for r in rows] == [("a1", "x", False), ("a2", "y", True)]
    assert [r.session_id for r in service.store.recorder.select_catalog(user_id="u2")] == ["y"]
