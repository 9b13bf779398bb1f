"""Rewind and fork at the session-service level, on every store."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import Event, EventActions, InvocationNotFoundError
from runtime.sessions import GetSessionConfig, SessionNotFoundError, session_service_from_url


async def turn(service, session, invocation_id: str, text: str, delta=None, artifacts=None) -> None:
    await service.append_event(session, Event(author="user", invocation_id=invocation_id))
    await service.append_event(
        session,
        Event(
            author="agent",
            invocation_id=invocation_id,
            actions=EventActions(state_delta=delta or {}, artifact_delta=artifacts or {}),
            custom_metadata={"text": text},
        ),
    )


def texts(session, *, rewound: bool = False) -> list[str]:
    """The texts of the session's live events (with ``rewound``: of all its events, as ADK keeps them)."""
    events = session.events if rewound else session.filter_events()
    return [e.custom_metadata["text"] for e in events if e.custom_metadata]


async def test_rewind_restores_state_including_initial(service):
    s = await service.create_session(app_name="app", user_id="u", session_id="s", state={"start": 1, "user:u": 0})
    await turn(service, s, "e-1", "one", {"a": 1, "start": 2})
    await turn(service, s, "e-2", "two", {"a": 2, "b": 2, "user:u": 5, "app:x": 1}, {"doc.txt": 0})
    await turn(service, s, "e-3", "three", {"c": 3}, {"doc.txt": 1, "new.txt": 0})

    marker = await service.rewind_session(app_name="app", user_id="u", session_id="s", rewind_before_invocation_id="e-2")
    assert marker.actions.rewind_before_invocation_id == "e-2"
    loaded = await service.get_session(app_name="app", user_id="u", session_id="s")
    # session keys as before e-2; keys created after read as absent; app:/user: not rolled back
    assert loaded.state == {"start": 2, "a": 1, "user:u": 5, "app:x": 1}
    assert loaded.state.get("b") is None and loaded.state.get("c") is None
    assert texts(loaded) == ["one"]
    # as in ADK, session.events keeps the rewound events, the marker after them
    assert texts(loaded, rewound=True) == ["one", "two", "three"]
    assert loaded.events[-1].id == marker.id

    # rewinding to the first invocation brings back the initial state
    await service.rewind_session(app_name="app", user_id="u", session_id="s", rewind_before_invocation_id="e-1")
    loaded = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert loaded.state == {"start": 1, "user:u": 5, "app:x": 1}
    assert texts(loaded) == []


async def test_rewound_invocations_cannot_be_targets_and_unknown_ids_write_nothing(service):
    s = await service.create_session(app_name="app", user_id="u", session_id="s")
    await turn(service, s, "e-1", "one", {"a": 1})
    await turn(service, s, "e-2", "two", {"a": 2})
    await service.rewind_session(app_name="app", user_id="u", session_id="s", rewind_before_invocation_id="e-1")
    before = await service.get_session(app_name="app", user_id="u", session_id="s")
    for target in ("e-2", "nope"):
        with pytest.raises(InvocationNotFoundError):
            await service.rewind_session(app_name="app", user_id="u", session_id="s", rewind_before_invocation_id=target)
    after = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert after.version == before.version
    with pytest.raises(SessionNotFoundError):
        await service.rewind_session(app_name="app", user_id="u", session_id="ghost", rewind_before_invocation_id="e-1")


async def test_rewinding_a_rewind_brings_the_turns_back(service):
    s = await service.create_session(app_name="app", user_id="u", session_id="s")
    await turn(service, s, "e-1", "one", {"a": 1})
    await turn(service, s, "e-2", "two", {"a": 2, "b": 2})
    marker = await service.rewind_session(app_name="app", user_id="u", session_id="s", rewind_before_invocation_id="e-2")
    await service.rewind_session(
        app_name="app", user_id="u", session_id="s", rewind_before_invocation_id=marker.invocation_id
    )
    loaded = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert loaded.state == {"a": 2, "b": 2}
    assert texts(loaded) == ["one", "two"]


async def test_conversation_continues_after_rewind_and_reload(service, store_url):
    s = await service.create_session(app_name="app", user_id="u", session_id="s")
    await turn(service, s, "e-1", "one", {"a": 1})
    await turn(service, s, "e-2", "bad", {"a": 666})
    await service.rewind_session(app_name="app", user_id="u", session_id="s", rewind_before_invocation_id="e-2")
    s = await service.get_session(app_name="app", user_id="u", session_id="s")
    await turn(service, s, "e-3", "good", {"a": 2})
    # rewinding twice in a row on the new timeline works too
    await turn(service, s, "e-4", "worse", {"a": 777})
    await service.rewind_session(app_name="app", user_id="u", session_id="s", rewind_before_invocation_id="e-4")
    if store_url != "memory://":
        service = session_service_from_url(store_url)  # a cold reader
    loaded = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert texts(loaded) == ["one", "good"] and loaded.state == {"a": 2}
    recent = await service.get_session(
        app_name="app", user_id="u", session_id="s", config=GetSessionConfig(num_recent_events=3)
    )
    assert [e.author for e in recent.events] == ["user", "agent", "user"]  # last is the rewind marker
    assert recent.events[-1].actions.rewind_before_invocation_id == "e-4"
    assert recent.events[0].invocation_id == recent.events[1].invocation_id == "e-4"
    assert recent.filter_events() == []
    # a window that starts after the rewound invocation's first event: the rest is still rewound
    newest = await service.get_session(
        app_name="app", user_id="u", session_id="s", config=GetSessionConfig(num_recent_events=2)
    )
    assert len(newest.events) == 2 and newest.filter_events() == []


async def test_fork_copies_history_up_to_an_invocation_and_leaves_source_alone(service):
    s = await service.create_session(app_name="app", user_id="u", session_id="s", state={"init": 1, "user:n": 1})
    await turn(service, s, "e-1", "one", {"a": 1}, {"f.txt": 0})
    await turn(service, s, "e-2", "two", {"a": 2}, {"f.txt": 1})
    await turn(service, s, "e-3", "three", {"a": 3})
    fork = await service.fork_session(app_name="app", user_id="u", session_id="s", at_invocation_id="e-2", new_session_id="what-if")
    assert fork.id == "what-if" and fork.state == {"init": 1, "a": 1, "user:n": 1}
    loaded_fork = await service.get_session(app_name="app", user_id="u", session_id="what-if")
    assert texts(loaded_fork) == ["one"]
    await turn(service, loaded_fork, "e-9", "other", {"a": 9})
    source = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert texts(source) == ["one", "two", "three"] and source.state["a"] == 3
    whole = await service.fork_session(app_name="app", user_id="u", session_id="s")
    assert texts(await service.get_session(app_name="app", user_id="u", session_id=whole.id)) == ["one", "two", "three"]
    # rewinding inside a fork works on the copied history
    await service.rewind_session(app_name="app", user_id="u", session_id=whole.id, rewind_before_invocation_id="e-2")
    assert (await service.get_session(app_name="app", user_id="u", session_id=whole.id)).state == {"init": 1, "a": 1, "user:n": 1}
    with pytest.raises(InvocationNotFoundError):
        await service.fork_session(app_name="app", user_id="u", session_id="s", at_invocation_id="nope")


async def test_fork_skips_rewound_turns(service):
    s = await service.create_session(app_name="app", user_id="u", session_id="s")
    await turn(service, s, "e-1", "one", {"a": 1})
    await turn(service, s, "e-2", "bad", {"a": 2, "oops": True})
    await service.rewind_session(app_name="app", user_id="u", session_id="s", rewind_before_invocation_id="e-2")
    fork = await service.fork_session(app_name="app", user_id="u", session_id="s")
    loaded = await service.get_session(app_name="app", user_id="u", session_id=fork.id)
    assert texts(loaded) == ["one"] and loaded.state == {"a": 1}


invocation_deltas = st.lists(
    st.dictionaries(st.sampled_from(["a", "b", "c", "user:u"]), st.integers(0, 9) | st.none(), max_size=3),
    min_size=1,
    max_size=8,
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(deltas=invocation_deltas, data=st.data())
async def test_rewinding_to_any_invocation_restores_the_state_before_it(sqlite_url, deltas, data):
    service = session_service_from_url("memory://" if data.draw(st.booleans()) else sqlite_url)
    s = await service.create_session(app_name="app", user_id="u", state={"a": -1})
    seen_before = []
    for i, delta in enumerate(deltas):
        seen_before.append({k: v for k, v in s.state.items() if not k.startswith("user:")})
        await turn(service, s, f"e-{i}", str(i), delta)
    target = data.draw(st.integers(0, len(deltas) - 1))
    await service.rewind_session(app_name="app", user_id="u", session_id=s.id, rewind_before_invocation_id=f"e-{target}")
    loaded = await service.get_session(app_name="app", user_id="u", session_id=s.id)
    assert {k: v for k, v in loaded.state.items() if not k.startswith("user:")} == seen_before[target]
    assert texts(loaded) == [str(i) for i in range(target)]
    await service.close()
