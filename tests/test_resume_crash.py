"""A process that dies in the middle of an invocation; the invocation is resumed from the log in
another process (this one), on a SQLite file and on PostgreSQL. Completed tool calls are not run
again, and the user's message is not stored twice."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from google.genai import types

from runtime import App, LlmAgent, ResumabilityConfig, Runner, ScriptedLlm, session_service_from_url

REPO = Path(__file__).resolve().parent.parent
APP, USER, SESSION = "crash_app", "cy", "s1"

CHILD = textwrap.dedent(
    """
    import asyncio, os, sys
    sys.path.insert(0, {repo!r})
    from google.genai import types
    from runtime import App, LlmAgent, ResumabilityConfig, Runner, ScriptedLlm, session_service_from_url

    url, mode, log = sys.argv[1], sys.argv[2], sys.argv[3]

    def note(what):
        with open(log, "a") as f:
            f.write(what + "\\n")

    async def fetch(item: str) -> dict:
        "Fetches an item."
        note("fetch:" + item)
        return {{"fetched": item}}

    async def explode(item: str, tool_context) -> dict:
        "Works on an item (and, here, kills the process)."
        note("explode:" + item)
        if mode == "parallel":
            # die only once the sibling's result is committed
            for _ in range(1000):
                if any(e.get_function_responses() for e in tool_context.session.events):
                    break
                await asyncio.sleep(0.01)
        os._exit(17)

    if mode == "parallel":
        turns = [ScriptedLlm.calls(("fetch", {{"item": "a"}}), ("explode", {{"item": "b"}}))]
    else:
        turns = [ScriptedLlm.call("fetch", item="a"), ScriptedLlm.call("explode", item="b")]

    async def main():
        sessions = session_service_from_url(url)
        await sessions.create_session(app_name={app!r}, user_id={user!r}, session_id={session!r})
        agent = LlmAgent(name="worker", model=ScriptedLlm(turns), tools=[fetch, explode])
        app = App(name={app!r}, root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=True))
        runner = Runner(app=app, session_service=sessions)
        message = types.Content(role="user", parts=[types.Part(text="do a and b")])
        async for event in runner.run_async(user_id={user!r}, session_id={session!r}, new_message=message):
            pass
        note("finished")  # never reached

    asyncio.run(main())
    """
).format(repo=str(REPO), app=APP, user=USER, session=SESSION)


@pytest.mark.parametrize("mode", ["sequential", "parallel"])
async def test_an_invocation_killed_mid_way_resumes_without_repeating_tools(shared_store_url, mode, tmp_path):
    log = tmp_path / "tools.log"
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    child = subprocess.run(
        [sys.executable, str(script), shared_store_url, mode, str(log)], capture_output=True, text=True, timeout=120
    )
    assert child.returncode == 17, child.stderr
    assert sorted(log.read_text().split()) == ["explode:b", "fetch:a"]

    # This process picks the invocation up from the log.
    sessions = session_service_from_url(shared_store_url)
    crashed = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    invocation = crashed.events[0].invocation_id
    assert crashed.events[0].author == "user"
    assert [e.get_function_calls()[0].name for e in crashed.events if e.get_function_calls()][-1] in ("explode", "fetch")

    ran: list[str] = []

    async def fetch(item: str) -> dict:
        """Fetches an item."""
        ran.append("fetch:" + item)
        return {"fetched": item}

    async def explode(item: str) -> dict:
        """Works on an item."""
        ran.append("explode:" + item)
        return {"worked": item}

    model = ScriptedLlm(["all done", "done again"])
    agent = LlmAgent(name="worker", model=model, tools=[fetch, explode])
    app = App(name=APP, root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=True))
    runner = Runner(app=app, session_service=sessions)
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, invocation_id=invocation)]

    assert ran == ["explode:b"]  # fetch had finished before the crash: not run again
    assert [e.text() for e in events if e.text()] == ["all done"]
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert {e.invocation_id for e in session.events} == {invocation}
    assert [e.text() for e in session.events if e.author == "user"] == ["do a and b"]
    # the model saw both results, each once
    results = [p.function_response.name for c in model.requests[-1].contents for p in c.parts if p.function_response]
    assert sorted(results) == ["explode", "fetch"]
    # and the invocation is finished now: as google-adk 2.13, resuming it again runs the agent
    # again (the model answers afresh), no tool runs twice
    assert session.events[-1].actions.end_of_agent
    again = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, invocation_id=invocation)]
    assert [e.text() for e in again if e.text()] == ["done again"] and ran == ["explode:b"]
    await sessions.close()


async def test_a_crash_before_the_model_answered_asks_the_model_once(shared_store_url):
    """The process died after the user's message was stored: resuming asks the model, and does not
    store the message again."""
    sessions = session_service_from_url(shared_store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    from domain import Event

    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    await sessions.append_event(
        session,
        Event(author="user", invocation_id="e-crashed", content=types.Content(role="user", parts=[types.Part(text="hi")])),
    )
    model = ScriptedLlm(["hello"])
    app = App(
        name=APP, root_agent=LlmAgent(name="w", model=model), resumability_config=ResumabilityConfig(is_resumable=True)
    )
    runner = Runner(app=app, session_service=sessions)
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, invocation_id="e-crashed")]
    assert [e.text() for e in events if e.text()] == ["hello"] and model.turns_played == 1
    assert [p.text for c in model.requests[0].contents for p in c.parts] == ["hi"]
    stored = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert [e.author for e in stored.events] == ["user", "w", "w"]
    await sessions.close()
