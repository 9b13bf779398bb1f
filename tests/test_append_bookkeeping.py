"""The shortcuts an in-memory append takes through its bookkeeping (issue 33) fold a state delta
exactly as the general rules do, on every store."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domain.events import Event, EventActions
from domain.state import session_scoped, split_scopes, without_temp
from runtime.sessions import session_service_from_url

deltas = st.dictionaries(
    st.sampled_from(["a", "b", "app:x", "user:y", "temp:z", "odd:k", "d"]),
    st.none() | st.integers() | st.dictionaries(st.sampled_from(["p", "q"]), st.integers(), max_size=2),
    max_size=5,
)


@given(deltas)
def test_the_session_part_of_a_delta_is_the_splits(delta):
    assert dict(session_scoped(delta)) == split_scopes(delta).session
    assert session_scoped(None) == {}


@given(deltas)
def test_a_delta_without_temp_keys_is_stored_as_it_is_and_one_with_them_is_copied(delta):
    before = dict(delta)
    stored = without_temp(delta)
    assert stored == {k: v for k, v in delta.items() if not k.startswith("temp:")}
    assert (stored is delta) == (not any(k.startswith("temp:") for k in delta))
    assert delta == before  # the caller's delta is never changed


async def test_an_append_stores_and_lists_the_session_part_and_shows_every_part(store_url):
    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name="app", user_id="u", session_id="s")
    first = Event(author="user", invocation_id="i1", actions=EventActions(state_delta={"turn": 1}))
    plain = first.actions.state_delta
    await sessions.append_event(session, first)
    assert first.actions.state_delta is plain  # nothing to drop: not copied
    second = Event(author="model", invocation_id="i1", actions=EventActions(
        state_delta={"turn": 2, "app:mode": "x", "user:seen": 1, "temp:scratch": object()}))
    mixed = second.actions.state_delta
    await sessions.append_event(session, second)
    assert "temp:scratch" not in second.actions.state_delta and "temp:scratch" in mixed  # a copy stored
    assert session.state["turn"] == 2 and "temp:scratch" in session.state
    loaded = await sessions.get_session(app_name="app", user_id="u", session_id="s")
    assert loaded.state == {"turn": 2, "app:mode": "x", "user:seen": 1}
    assert loaded.events[1].actions.state_delta == {"turn": 2, "app:mode": "x", "user:seen": 1}
    [listed] = (await sessions.list_sessions(app_name="app", user_id="u")).sessions
    assert listed.state == {"turn": 2, "app:mode": "x", "user:seen": 1}
    await sessions.close()


async def test_a_none_put_where_a_typed_list_or_dict_allows_none_is_refused_and_nothing_is_written(store_url):
    import pytest
    from google.genai import types

    from domain.errors import InvalidArgumentError

    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name="app", user_id="u", session_id="s")
    in_list = Event(author="model", content=types.Content(role="model", parts=[types.Part(text="hi")]))
    in_list.content.parts.append(None)  # changed after it was built: pydantic would write it as null
    in_dict = Event(author="model", actions=EventActions(artifact_delta={"f.txt": 1}))
    in_dict.actions.artifact_delta["g.txt"] = None
    for event, where in ((in_list, ".content.parts"), (in_dict, ".actions.artifact_delta")):
        with pytest.raises(InvalidArgumentError, match=rf"{where}.*holds None where its type allows none"):
            await sessions.append_event(session, event)
    loaded = await sessions.get_session(app_name="app", user_id="u", session_id="s")
    assert loaded.events == [] and session.events == []
    await sessions.close()
