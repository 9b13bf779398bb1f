"""Events that bypassed their checks — built with `model_construct`, or changed after they were
built — get the same typed refusal on every store, and nothing is written."""

from __future__ import annotations

import asyncio
from typing import Any, Callable

import pytest
from google.genai import types

from domain import Event, EventActions
from domain.errors import InvalidArgumentError
from runtime.sessions import LogSessionService
from runtime.stores import open_store


def _changed(**fields: Any) -> Callable[[], Event]:
    def make() -> Event:
        event = Event(author="user", invocation_id="i-1")
        for name, value in fields.items():
            setattr(event, name, value)
        return event
    return make


REFUSED = {
    "model_construct, actions a dict": lambda: Event.model_construct(
        author="user", invocation_id="i-1", actions={"state_delta": {"a": 1}}),
    "model_construct, actions None": lambda: Event.model_construct(author="user", invocation_id="i-1", actions=None),
    "model_construct, content a dict": lambda: Event.model_construct(
        author="user", invocation_id="i-1", content={"parts": [{"text": "x"}]}),
    "model_construct, node_info a dict": lambda: Event.model_construct(
        author="user", invocation_id="i-1", node_info={"path": "a"}),
    "actions set to a dict": _changed(actions={"state_delta": {"a": 1}}),
    "custom_metadata set to a set inside": _changed(custom_metadata={"tags": {"a", "b"}}),
    "custom_metadata set to bytes inside": _changed(custom_metadata={"raw": b"\x00\x01"}),
    "custom_metadata set to a list": _changed(custom_metadata=["a"]),
    "partial set to text": _changed(partial="yes"),
    "turn_complete set to text": _changed(turn_complete="no"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_events_that_skipped_their_checks_are_refused_on_every_store(store_url, name):
    async def attempt() -> None:
        store = open_store(store_url)
        sessions = LogSessionService(store)
        try:
            session = await sessions.create_session(app_name="app", user_id="ann", session_id="s")
            with pytest.raises(InvalidArgumentError) as refused:
                await sessions.append_event(session, REFUSED[name]())
            assert "\n" not in str(refused.value)
            again = await sessions.get_session(app_name="app", user_id="ann", session_id="s")
            assert again.events == [] and again.state == {}
        finally:
            await sessions.close()
            store.close()

    asyncio.run(attempt())


def test_metadata_set_after_building_is_stored_when_it_is_plain_json(store_url):
    async def attempt() -> None:
        store = open_store(store_url)
        sessions = LogSessionService(store)
        try:
            session = await sessions.create_session(app_name="app", user_id="ann", session_id="s")
            event = Event(author="user", invocation_id="i-1", content=types.Content(role="user", parts=[types.Part(text="x")]))
            event.custom_metadata = {"source": "web", "n": [1, 2]}
            await sessions.append_event(session, event)
            again = await sessions.get_session(app_name="app", user_id="ann", session_id="s")
            assert again.events[0].custom_metadata == {"source": "web", "n": [1, 2]}
        finally:
            await sessions.close()
            store.close()

    asyncio.run(attempt())
