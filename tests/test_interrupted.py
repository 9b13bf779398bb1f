"""Crashed and refused turns are visible: a turn whose process was SIGKILLed mid-tool, or that lost
the session to another writer, leaves a tool call without a result. History (its JSON, which the
viewer reads, and its text) marks that invocation interrupted, analytics counts it once the
session's next invocation starts, and a resumable app still resumes it (then it is not)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from google.genai import types

from domain import Event
from projections.analytics import AnalyticsView, fold_analytics
from projections.log_event import INTERRUPTED
from domain.session_log import session_log_id
from runtime.read_models import TimeTravel
from runtime import App, LlmAgent, ResumabilityConfig, Runner, ScriptedLlm, session_service_from_url
from runtime.sessions import LogSessionService
from runtime.stores import open_store
from tests.cli_helpers import cli

REPO = Path(__file__).resolve().parent.parent
APP, USER, SESSION = "crash_app", "cy", "s1"

CHILD = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    sys.path.insert(0, {repo!r})
    from google.genai import types
    from runtime import App, LlmAgent, ResumabilityConfig, Runner, ScriptedLlm, session_service_from_url

    url, resumable = sys.argv[1], sys.argv[2] == "resumable"

    async def explode(item: str) -> dict:
        "Works on an item (and, here, the process is killed)."
        os.kill(os.getpid(), signal.SIGKILL)

    async def main():
        sessions = session_service_from_url(url)
        await sessions.create_session(app_name={app!r}, user_id={user!r}, session_id={session!r})
        agent = LlmAgent(name="worker", model=ScriptedLlm([ScriptedLlm.call("explode", item="b")]), tools=[explode])
        app = App(name={app!r}, root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=resumable))
        runner = Runner(app=app, session_service=sessions)
        message = types.Content(role="user", parts=[types.Part(text="do b")])
        async for event in runner.run_async(user_id={user!r}, session_id={session!r}, new_message=message):
            pass

    asyncio.run(main())
    """
).format(repo=str(REPO), app=APP, user=USER, session=SESSION)


def _killed_turn(url: str, tmp_path: Path, mode: str) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    child = subprocess.run([sys.executable, str(script), url, mode], capture_output=True, text=True, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr


def _app(model: ScriptedLlm, resumable: bool) -> App:
    async def explode(item: str) -> dict:
        """Works on an item."""
        return {"worked": item}

    return App(name=APP, root_agent=LlmAgent(name="worker", model=model, tools=[explode]),
               resumability_config=ResumabilityConfig(is_resumable=resumable))


def _recorded_interruptions(where) -> list[tuple[str, list[str]]]:
    """The SessionLog.Interrupted facts in the session's log (a store, or its URL): (invocation
    id, open calls)."""
    store = open_store(where) if isinstance(where, str) else where
    try:
        events = TimeTravel(store).source.session_events(session_log_id(APP, USER, SESSION))
        return [(e.meta["invocation_id"], e.meta["open_calls"]) for e in events if e.kind == INTERRUPTED]
    finally:
        if store is not where:
            store.close()


def _history(url: str) -> dict:
    return json.loads(cli("history", SESSION, "--app", APP, "--user", USER, "--json", store=url).stdout)


async def test_a_killed_turn_is_interrupted_in_history_and_analytics(shared_store_url, tmp_path):
    _killed_turn(shared_store_url, tmp_path, "plain")
    (crashed,) = _history(shared_store_url)["timeline"]["invocations"]
    assert crashed["interrupted"] is True and len(crashed["open_calls"]) == 1
    text = cli("history", SESSION, "--app", APP, "--user", USER, store=shared_store_url).stdout
    assert "INTERRUPTED: 1 tool call(s) without a result" in text

    # The user tries again: a new invocation (the first one's writer is gone); it ends well.
    sessions = session_service_from_url(shared_store_url)
    runner = Runner(app=_app(ScriptedLlm(["hello again"]), resumable=False), session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="hi")])
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]
    assert [e.text() for e in events if e.text()] == ["hello again"]
    await sessions.close()
    first, second = _history(shared_store_url)["timeline"]["invocations"]
    assert first["interrupted"] is True and second["interrupted"] is False
    # The new invocation's writer proved the first one's gone: the log records it, as a fact of
    # Chronicle's own that ADK clients never see among the session's events.
    assert first["interrupted_recorded"] is True and first["open_calls"] == crashed["open_calls"]
    assert second["interrupted_recorded"] is False
    text = cli("history", SESSION, "--app", APP, "--user", USER, store=shared_store_url).stdout
    assert text.count("INTERRUPTED, recorded: 1 tool call(s) without a result") == 1
    assert _recorded_interruptions(shared_store_url) == [(crashed["invocation_id"], crashed["open_calls"])]
    sessions = session_service_from_url(shared_store_url)
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert [e.author for e in session.events] == ["user", "worker", "user", "worker"]
    await sessions.close()
    totals = json.loads(cli("analytics", "--json", store=shared_store_url).stdout)[APP]["totals"]
    assert totals["invocations"] == 2 and totals["interrupted"] == 1
    cli("verify", store=shared_store_url)  # the live read model equals its refold


async def test_a_resumable_app_resumes_the_killed_turn_which_is_then_not_interrupted(shared_store_url, tmp_path):
    _killed_turn(shared_store_url, tmp_path, "resumable")
    (crashed,) = _history(shared_store_url)["timeline"]["invocations"]
    assert crashed["interrupted"] is True
    sessions = session_service_from_url(shared_store_url)
    runner = Runner(app=_app(ScriptedLlm(["done"]), resumable=True), session_service=sessions)
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION,
                                                invocation_id=crashed["invocation_id"])]
    assert [e.text() for e in events if e.text()] == ["done"]
    await sessions.close()
    (resumed,) = _history(shared_store_url)["timeline"]["invocations"]
    assert resumed["interrupted"] is False and resumed["open_calls"] == []
    assert _recorded_interruptions(shared_store_url) == []  # resumed, not left: nothing to record
    totals = json.loads(cli("analytics", "--json", store=shared_store_url).stdout)[APP]["totals"]
    assert totals.get("interrupted", 0) == 0


def _call(invocation: str, call_id: str, *, long_running: bool = False) -> Event:
    part = types.Part(function_call=types.FunctionCall(id=call_id, name="t", args={}))
    return Event(author="a", invocation_id=invocation, content=types.Content(role="model", parts=[part]),
                 long_running_tool_ids={call_id} if long_running else None)


def _said(invocation: str, author: str, text: str) -> Event:
    return Event(author=author, invocation_id=invocation,
                 content=types.Content(role="user" if author == "user" else "model", parts=[types.Part(text=text)]))


async def test_the_folds_mark_only_unanswered_calls_that_do_not_wait(store_url):
    """On every store: a call without a result, followed by another invocation (as after a lost
    409 race, where the loser's result was refused), is interrupted; a long-running call that waits
    for its answer is not."""
    store = open_store(store_url)
    sessions = LogSessionService(store)
    session = await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    for event in [_said("i-1", "user", "go"), _call("i-1", "c-1"),
                  _said("i-2", "user", "again"), _call("i-2", "c-2", long_running=True),
                  _said("i-3", "user", "third"), _said("i-3", "a", "fine")]:
        await sessions.append_event(session, event)
    time_travel = TimeTravel(store)
    timeline, analytics = time_travel.history((APP, USER, SESSION)), AnalyticsView()
    for event in time_travel.source.session_events(session_log_id(APP, USER, SESSION)):
        fold_analytics(analytics, event)
    assert [(i.invocation_id, i.interrupted) for i in timeline.invocations] == [
        ("i-1", True), ("i-2", False), ("i-3", False)]
    # i-2's first event proved i-1's writer gone: recorded once (and counted once), in the log
    # but not among the session's events; i-2's waiting call is not an interruption.
    assert [i.interrupted_recorded for i in timeline.invocations] == [True, False, False]
    assert _recorded_interruptions(store) == [("i-1", ["c-1"])]
    assert analytics.totals.interrupted == 1
    # The recorded fact is counted even when analytics no longer holds the session's open calls
    # (its cursor dropped, as for a session idle for long): the fact, not the reading.
    forgetful = AnalyticsView()
    for event in time_travel.source.session_events(session_log_id(APP, USER, SESSION)):
        if event.kind == INTERRUPTED:
            forgetful.cursors.clear()
        fold_analytics(forgetful, event)
    assert forgetful.totals.interrupted == 1
    reread = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert [e.invocation_id for e in reread.events] == ["i-1", "i-1", "i-2", "i-2", "i-3", "i-3"]
    await sessions.close()
    store.close()


async def test_the_turn_that_lost_a_409_race_is_interrupted(store_url):
    """Two turns on one session at once: the one whose tool was still running when the other
    wrote gets a StaleSessionError for its result, and its invocation is marked interrupted."""
    import asyncio

    from domain.errors import StaleSessionError

    store = open_store(store_url)
    sessions = LogSessionService(store)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    release = asyncio.Event()

    async def slow(item: str) -> dict:
        """Takes a while."""
        await release.wait()
        return {"done": item}

    first = Runner(app=App(name=APP, root_agent=LlmAgent(
        name="worker", model=ScriptedLlm([ScriptedLlm.call("slow", item="a"), "finished"]), tools=[slow])),
        session_service=sessions)
    second = Runner(app=_app(ScriptedLlm(["meanwhile"]), resumable=False), session_service=sessions)

    async def run(runner: Runner, text: str) -> list[Event]:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        return [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]

    losing = asyncio.create_task(run(first, "slow please"))
    for _ in range(500):  # until the call is in the log
        session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
        if any(e.get_function_calls() for e in session.events):
            break
        await asyncio.sleep(0.01)
    assert [e.text() for e in await run(second, "hi") if e.text()] == ["meanwhile"]
    release.set()
    with pytest.raises(StaleSessionError):
        await losing
    timeline = TimeTravel(store).history((APP, USER, SESSION))
    assert [(i.steps[0].text, i.interrupted, i.interrupted_recorded) for i in timeline.invocations] == [
        ("slow please", True, True), ("hi", False, False)]
    ((lost, open_calls),) = _recorded_interruptions(store)
    assert lost == timeline.invocations[0].invocation_id and open_calls == timeline.invocations[0].open_calls
    await sessions.close()
    store.close()
