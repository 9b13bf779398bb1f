"""The session contract stock ADK code relies on, written from ADK 2.13's documented behaviour
(base_session_service.py and its services' docstrings), checked on the bridge over every store."""

from __future__ import annotations

import time

import pytest
from google.adk.errors import StaleSessionError as AdkStaleSessionError
from google.adk.errors.already_exists_error import AlreadyExistsError as AdkAlreadyExistsError
from google.adk.events.event import Event, NodeInfo
from google.adk.events.event_actions import EventActions
from google.adk.sessions.base_session_service import GetSessionConfig
from google.genai import types

from domain import errors
from runtime.adk_bridge import ChronicleSessionService

APP = "shop"


def said(author: str, text: str, **kwargs) -> Event:
    return Event(invocation_id=f"inv-{text}", author=author,
                 content=types.Content(role="model" if author != "user" else "user", parts=[types.Part(text=text)]),
                 **kwargs)


@pytest.fixture
async def service(store_url):
    sessions = ChronicleSessionService(store_url)
    yield sessions
    await sessions.close()


async def test_scopes_app_user_and_session_state(service):
    one = await service.create_session(app_name=APP, user_id="ann", session_id="s1",
                                       state={"app:currency": "EUR", "user:name": "Ann", "draft": 1})
    await service.append_event(one, said("clerk", "a", actions=EventActions(
        state_delta={"app:promo": "spring", "user:visits": 1, "cart": ["lamp"]})))
    ann2 = await service.create_session(app_name=APP, user_id="ann", session_id="s2")
    bob = await service.create_session(app_name=APP, user_id="bob", session_id="s3")
    assert ann2.state == {"app:currency": "EUR", "app:promo": "spring", "user:name": "Ann", "user:visits": 1}
    assert bob.state == {"app:currency": "EUR", "app:promo": "spring"}
    again = await service.get_session(app_name=APP, user_id="ann", session_id="s1")
    assert again.state == {**ann2.state, "draft": 1, "cart": ["lamp"]}
    assert await service.get_user_state(app_name=APP, user_id="ann") == {"name": "Ann", "visits": 1}
    assert await service.get_user_state(app_name=APP, user_id="nobody") == {}


async def test_temp_state_is_seen_by_the_invocation_and_never_stored(service):
    session = await service.create_session(app_name=APP, user_id="ann", session_id="s1", state={"temp:x": 1, "k": 1})
    assert session.state == {"k": 1}
    event = said("clerk", "a", actions=EventActions(state_delta={"temp:step": 2, "k": 2}))
    returned = await service.append_event(session, event)
    assert session.state == {"k": 2, "temp:step": 2}  # the running invocation sees it
    assert returned.actions.state_delta == {"k": 2}
    stored = await service.get_session(app_name=APP, user_id="ann", session_id="s1")
    assert stored.state == {"k": 2} and stored.events[0].actions.state_delta == {"k": 2}


async def test_partial_events_are_not_stored(service):
    session = await service.create_session(app_name=APP, user_id="ann", session_id="s1")
    await service.append_event(session, said("clerk", "chunk", partial=True))
    assert (await service.get_session(app_name=APP, user_id="ann", session_id="s1")).events == []


async def test_num_recent_events_and_after_timestamp(service):
    session = await service.create_session(app_name=APP, user_id="ann", session_id="s1")
    t0 = time.time()
    for i in range(5):
        await service.append_event(session, said("clerk", f"m{i}", timestamp=t0 + i))

    async def texts(**config):
        got = await service.get_session(app_name=APP, user_id="ann", session_id="s1",
                                        config=GetSessionConfig(**config))
        return [e.content.parts[0].text for e in got.events]

    assert await texts(num_recent_events=2) == ["m3", "m4"]
    assert await texts(num_recent_events=0) == []
    assert await texts(after_timestamp=t0 + 3) == ["m3", "m4"]  # timestamp >= after_timestamp
    assert await texts(num_recent_events=1, after_timestamp=t0 + 1) == ["m4"]
    assert await texts() == ["m0", "m1", "m2", "m3", "m4"]
    with pytest.raises(ValueError):
        GetSessionConfig(num_recent_events=-1)


async def test_list_sessions_oldest_update_first_without_events(service):
    for sid in ("a", "b", "c"):
        await service.create_session(app_name=APP, user_id="ann", session_id=sid)
    await service.create_session(app_name=APP, user_id="bob", session_id="d")
    a = await service.get_session(app_name=APP, user_id="ann", session_id="a")
    await service.append_event(a, said("clerk", "latest", timestamp=time.time() + 5))
    listed = (await service.list_sessions(app_name=APP, user_id="ann")).sessions
    assert [s.id for s in listed] == ["b", "c", "a"] and all(s.events == [] for s in listed)
    assert {s.id for s in (await service.list_sessions(app_name=APP)).sessions} == {"a", "b", "c", "d"}


async def test_delete_session_keeps_user_and_app_state(service):
    session = await service.create_session(app_name=APP, user_id="ann", session_id="s1")
    await service.append_event(session, said("clerk", "a", actions=EventActions(
        state_delta={"user:name": "Ann", "app:open": True, "mine": 1})))
    await service.delete_session(app_name=APP, user_id="ann", session_id="s1")
    assert await service.get_session(app_name=APP, user_id="ann", session_id="s1") is None
    assert [s.id for s in (await service.list_sessions(app_name=APP, user_id="ann")).sessions] == []
    fresh = await service.create_session(app_name=APP, user_id="ann", session_id="s2")
    assert fresh.state == {"user:name": "Ann", "app:open": True}
    await service.delete_session(app_name=APP, user_id="ann", session_id="never")  # no error, as in ADK


async def test_a_stale_writer_gets_adks_error_and_writes_nothing(service):
    mine = await service.create_session(app_name=APP, user_id="ann", session_id="s1")
    theirs = await service.get_session(app_name=APP, user_id="ann", session_id="s1")
    await service.append_event(theirs, said("clerk", "first"))
    with pytest.raises(AdkStaleSessionError) as raised:
        await service.append_event(mine, said("clerk", "second"))
    assert isinstance(raised.value, errors.StaleSessionError) and isinstance(raised.value, ValueError)
    assert (raised.value.expected_version, raised.value.actual_version) == (1, 2)
    stored = await service.get_session(app_name=APP, user_id="ann", session_id="s1")
    assert [e.content.parts[0].text for e in stored.events] == ["first"]
    # Reloaded, it writes.
    await service.append_event(stored, said("clerk", "second"))
    assert len((await service.get_session(app_name=APP, user_id="ann", session_id="s1")).events) == 2


async def test_appending_the_same_event_twice_stores_it_once(service):
    session = await service.create_session(app_name=APP, user_id="ann", session_id="s1")
    event = said("clerk", "once")
    await service.append_event(session, event)
    stale = await service.get_session(app_name=APP, user_id="ann", session_id="s1")
    stale._storage_update_marker = "1"
    again = await service.append_event(stale, event.model_copy(deep=True))
    assert again.id == event.id
    assert len((await service.get_session(app_name=APP, user_id="ann", session_id="s1")).events) == 1


async def test_ids_missing_sessions_and_existing_ones(service):
    assert await service.get_session(app_name=APP, user_id="ann", session_id="nope") is None
    made = await service.create_session(app_name=APP, user_id="ann")
    assert made.id and made.events == [] and made.last_update_time > 0
    with pytest.raises(AdkAlreadyExistsError):
        await service.create_session(app_name=APP, user_id="ann", session_id=made.id)
    with pytest.raises(ValueError):
        await service.create_session(app_name="../etc", user_id="ann")


async def test_adk_2_fields_are_stored_as_fields(service):
    session = await service.create_session(app_name=APP, user_id="ann", session_id="s1")
    event = Event(
        invocation_id="inv-1", author="judge", output={"score": 3, "tags": ["a"]},
        node_info=NodeInfo(path="wf/judge@1", output_for=["wf/judge@1", "wf"], message_as_output=True),
        isolation_scope="call-7", model_version="fake-1", interaction_id="int-9", avg_logprobs=-0.5,
        turn_complete_reason=None, long_running_tool_ids={"b", "a"},
        content=types.Content(role="model", parts=[types.Part(inline_data=types.Blob(mime_type="image/png",
                                                                                     data=b"\x89PNG\x00"))]),
        actions=EventActions(route=["left", 2], agent_state={"step": 1}, end_of_agent=True,
                             set_model_response={"answer": 42},
                             render_ui_widgets=[{"id": "w1", "provider": "mcp", "payload": {"k": "v"}}]),
    )
    await service.append_event(session, event)
    stored = (await service.get_session(app_name=APP, user_id="ann", session_id="s1")).events[0]
    assert stored.model_dump() == event.model_dump()
    # Chronicle reads the same fields.
    chronicle = (await service.sessions.get_session(app_name=APP, user_id="ann", session_id="s1")).events[0]
    assert chronicle.node_info.path == "wf/judge@1" and chronicle.output == {"score": 3, "tags": ["a"]}
    assert chronicle.isolation_scope == "call-7" and chronicle.interaction_id == "int-9"
    assert chronicle.custom_metadata is None  # nothing tucked away


async def test_loads_see_other_writers_and_are_callers_own(shared_store_url):
    """A service keeps recently loaded sessions' events converted; a load still shows what another
    service instance (another process) appended, and what a caller changes is its own copy."""
    one, two = ChronicleSessionService(shared_store_url), ChronicleSessionService(shared_store_url)
    session = await one.create_session(app_name=APP, user_id="ann", session_id="s1")
    await one.append_event(session, said("clerk", "from one"))
    first = await one.get_session(app_name=APP, user_id="ann", session_id="s1")  # warm
    first.events[0].content.parts[0].text = "changed by a caller"
    theirs = await two.get_session(app_name=APP, user_id="ann", session_id="s1")
    await two.append_event(theirs, said("clerk", "from two"))
    again = await one.get_session(app_name=APP, user_id="ann", session_id="s1")
    assert [e.content.parts[0].text for e in again.events] == ["from one", "from two"]
    with pytest.raises(AdkStaleSessionError):
        await one.append_event(first, said("clerk", "late"))
    await one.close()
    await two.close()
