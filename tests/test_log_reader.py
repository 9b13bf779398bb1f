"""LogReader on every store: a session's catalog row by its key (deleted ones too), and its events
live (what the Runner works from) or all, across a rewind and its undoing."""

from __future__ import annotations

import pytest
from google.genai import types

from domain.errors import SessionNotFoundError
from domain.session_log import RECORDED_TOPICS
from runtime import LlmAgent, Runner, ScriptedLlm, session_service_from_url
from runtime.log_reader import LogReader


async def test_a_session_is_read_by_its_key_deleted_or_not(store_url):
    sessions = session_service_from_url(store_url)
    reader = LogReader(sessions.store)
    for session_id in ("s", "gone"):
        await sessions.create_session(app_name="a", user_id="u", session_id=session_id)
    await sessions.delete_session(app_name="a", user_id="u", session_id="gone")
    row = await sessions.store.call(reader.session, "a", "u", "s")
    assert (row.app_name, row.user_id, row.session_id, row.deleted) == ("a", "u", "s", False)
    assert reader.session("a", "u", "gone").deleted
    assert reader.session("a", "someone else", "s") is None and reader.session("b", "u", "s") is None
    with pytest.raises(SessionNotFoundError):
        reader.stored_session("a", "u", "never")
    assert [r.session_id for r in reader.sessions("a", "u", deleted=False)] == ["s"]
    assert sorted(r.session_id for r in reader.sessions("a")) == ["gone", "s"]
    await sessions.close()


async def test_live_events_are_the_runners_across_a_rewind_and_its_undoing(store_url):
    sessions = session_service_from_url(store_url)
    agent = LlmAgent(name="echo", model=ScriptedLlm([lambda request: "ok"], cycle=True))
    runner = Runner(app_name="a", agent=agent, session_service=sessions)
    await sessions.create_session(app_name="a", user_id="u", session_id="s")
    turns = []
    for text in ("one", "two"):
        message = types.Content(role="user", parts=[types.Part(text=text)])
        turns.append([e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)])
    reader = LogReader(sessions.store)

    async def agree() -> list[str]:
        session = await sessions.get_session(app_name="a", user_id="u", session_id="s")
        row = reader.stored_session("a", "u", "s")
        assert [e.id for e in reader.events(row)] == [e.id for e in session.live_events()]
        assert [e.id for e in reader.events(row, live=False)] == [e.id for e in session.events]
        return [e.invocation_id for e in reader.events(row) if e.author == "user"]

    assert await agree() == [turns[0][0].invocation_id, turns[1][0].invocation_id]
    marker = await runner.rewind_async(user_id="u", session_id="s", rewind_before_invocation_id=turns[1][0].invocation_id)
    assert await agree() == [turns[0][0].invocation_id]
    await runner.rewind_async(user_id="u", session_id="s", rewind_before_invocation_id=marker.invocation_id)
    assert await agree() == [turns[0][0].invocation_id, turns[1][0].invocation_id]
    row = reader.stored_session("a", "u", "s")
    versions = [v for v, topic, _ in reader.rows(row.log_id) if topic in RECORDED_TOPICS]
    window = reader.events(row, live=False, gt=versions[0], lte=versions[2])  # a window of versions
    assert [e.id for e in window] == [e.id for e in reader.events(row, live=False)][1:3]
    await sessions.close()
