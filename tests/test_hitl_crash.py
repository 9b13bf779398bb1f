"""A process killed while its invocation waits for a person; another process answers and the
invocation goes on. The wait is a fact in the log, not a promise held by the dead process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from google.genai import types

from projections.pending import open_requests
from runtime import App, FunctionTool, LlmAgent, ResumabilityConfig, Runner, ScriptedLlm, session_service_from_url

REPO = Path(__file__).resolve().parent.parent
APP, USER, SESSION = "crash_hitl", "kim", "s1"

CHILD = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, {repo!r})
    from google.genai import types
    from runtime import App, FunctionTool, LlmAgent, ResumabilityConfig, Runner, ScriptedLlm, session_service_from_url

    url, log, resumable = sys.argv[1], sys.argv[2], sys.argv[3] == "1"

    def note(what):
        with open(log, "a") as f:
            f.write(what + "\\n")

    def lookup(who: str) -> dict:
        "Looks an employee up."
        note("lookup:" + who)
        return {{"limit": 100}}

    def reimburse(amount: int) -> dict:
        "Pays an amount back."
        note("reimburse:" + str(amount))
        return {{"paid": amount}}

    async def main():
        sessions = session_service_from_url(url)
        await sessions.create_session(app_name={app!r}, user_id={user!r}, session_id={session!r})
        turns = [ScriptedLlm.call("lookup", who="kim"), ScriptedLlm.call("reimburse", amount=80)]
        agent = LlmAgent(name="clerk", model=ScriptedLlm(turns), tools=[lookup, FunctionTool(reimburse, require_confirmation=True)])
        config = ResumabilityConfig(is_resumable=True) if resumable else None
        runner = Runner(app=App(name={app!r}, root_agent=agent, resumability_config=config), session_service=sessions)
        message = types.Content(role="user", parts=[types.Part(text="pay kim 80")])
        async for event in runner.run_async(user_id={user!r}, session_id={session!r}, new_message=message):
            pass
        note("paused")
        await asyncio.sleep(3600)  # a process that waits for the person, until it is killed

    asyncio.run(main())
    """
).format(repo=str(REPO), app=APP, user=USER, session=SESSION)


def wait_for(path: Path, line: str, child: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and line in path.read_text().splitlines():
            return
        assert child.poll() is None, f"the child died early: {child.stderr.read() if child.stderr else ''}"
        time.sleep(0.05)
    raise AssertionError(f"the child never wrote {line!r}")


@pytest.mark.parametrize("resumable", [False, True])
async def test_a_process_killed_while_waiting_is_resumed_by_another(shared_store_url, tmp_path, resumable):
    log = tmp_path / "calls.log"
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    child = subprocess.Popen(
        [sys.executable, str(script), shared_store_url, str(log), "1" if resumable else "0"],
        stderr=subprocess.PIPE, text=True,
    )
    try:
        wait_for(log, "paused", child)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    assert log.read_text().splitlines() == ["lookup:kim", "paused"]

    # another process: new services on the same store, nothing carried over from the dead one
    def note_tool(name: str):
        def lookup(who: str) -> dict:
            """Looks an employee up."""
            log.open("a").write(f"lookup:{who}\n")
            return {"limit": 100}

        def reimburse(amount: int) -> dict:
            """Pays an amount back."""
            log.open("a").write(f"reimburse:{amount}\n")
            return {"paid": amount}

        return {"lookup": lookup, "reimburse": reimburse}[name]

    sessions = session_service_from_url(shared_store_url)
    try:
        session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
        [request] = open_requests(session.events).values()
        assert request.kind == "confirmation" and request.tool == "reimburse" and request.agent == "clerk"
        agent = LlmAgent(
            name="clerk", model=ScriptedLlm(["paid 80"]),
            tools=[note_tool("lookup"), FunctionTool(note_tool("reimburse"), require_confirmation=True)],
        )
        config = ResumabilityConfig(is_resumable=True) if resumable else None
        runner = Runner(app=App(name=APP, root_agent=agent, resumability_config=config), session_service=sessions)
        answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
            id=request.call_id, name="adk_request_confirmation", response={"confirmed": True}))])
        events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=answer)]
        assert [e.text() for e in events if e.text()] == ["paid 80"]
        if resumable:
            assert {e.invocation_id for e in events} == {request.invocation_id}
        # the finished lookup did not run again; the approved payment ran once
        assert log.read_text().splitlines() == ["lookup:kim", "paused", "reimburse:80"]
        session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
        assert open_requests(session.events) == {}
    finally:
        await sessions.close()
