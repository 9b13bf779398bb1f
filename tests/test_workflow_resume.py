"""Resuming a workflow invocation from its log: after a failure in the same process, and after a
process killed mid-workflow (SQLite file and PostgreSQL), no finished node runs twice."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from google.genai import types

from projections.workflow import fold_all
from runtime import App, ResumabilityConfig, Runner, session_service_from_url
from runtime.workflow import START, JoinNode, Workflow, node

REPO = Path(__file__).resolve().parent.parent
APP, USER, SESSION = "wf_resume", "u1", "s1"


def resumable(workflow: Workflow) -> App:
    return App(name=APP, root_agent=workflow, resumability_config=ResumabilityConfig(is_resumable=True))


def build(ran: list[str], broken: set[str]) -> Workflow:
    """START -> a -> (b, c) -> join -> d; a node named in `broken` raises."""

    def make(name):
        def work(node_input: str | dict):
            ran.append(name)
            if name in broken:
                raise RuntimeError(f"{name} is broken")
            return f"{name}({node_input})" if not isinstance(node_input, dict) else f"{name}{sorted(node_input)}"

        return node(work, name=name)

    a, b, c, d = (make(n) for n in "abcd")
    return Workflow(name="wf", edges=[(START, a, (b, c), JoinNode(name="join"), d)])


async def test_a_failed_invocation_resumes_without_rerunning_finished_nodes(store_url):
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    ran: list[str] = []
    runner = Runner(app=resumable(build(ran, broken={"d"})), session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="x")])
    try:
        async for _ in runner.run_async(user_id=USER, session_id=SESSION, new_message=message):
            pass
    except RuntimeError:
        pass
    assert sorted(ran) == ["a", "b", "c", "d"]
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    invocation = session.events[0].invocation_id
    assert fold_all(session.log_events()).nodes["wf@1/d@1"].status == "failed"

    ran.clear()
    runner = Runner(app=resumable(build(ran, broken=set())), session_service=sessions)
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, invocation_id=invocation)]
    assert ran == ["d"]
    # as google-adk 2.13 in a resumable app: the finished nodes' outputs are said again (not run)
    assert [e.output for e in events if e.output is not None] == [
        "a(x)", "b(a(x))", "c(a(x))", {"b": "b(a(x))", "c": "c(a(x))"}, "d['b', 'c']"
    ]
    assert events[-1].actions.end_of_agent
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    runs = fold_all(session.log_events()).nodes
    assert runs["wf@1/d@1"].status == "completed" and runs["wf@1/d@1"].input == {"b": "b(a(x))", "c": "c(a(x))"}
    # finished now: as google-adk 2.13, resuming again says the outputs and the end again, runs nothing
    again = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, invocation_id=invocation)]
    assert [e.output for e in again if e.output is not None] == [e.output for e in events if e.output is not None]
    assert again[-1].actions.end_of_agent and ran == ["d"]
    await sessions.close()


CHILD = textwrap.dedent(
    """
    import asyncio, os, sys
    sys.path.insert(0, {repo!r})
    from google.genai import types
    from runtime import App, ResumabilityConfig, Runner, session_service_from_url
    from runtime.workflow import START, Workflow, node

    url, count_file, die_at = sys.argv[1], sys.argv[2], int(sys.argv[3])

    def make(i):
        def work(node_input: int) -> int:
            with open(count_file, "a") as f:
                f.write(f"n{{i}}\\n")
            if i == die_at and os.environ.get("CHILD") == "1":
                os._exit(17)  # killed in the middle of the workflow
            return int(node_input) + 1
        return node(work, name=f"n{{i}}")

    def chain(n):
        return Workflow(name="wf", edges=[(START, *[make(i) for i in range(n)])])

    async def main(n, mode):
        sessions = session_service_from_url(url)
        app = App(name={app!r}, root_agent=chain(n), resumability_config=ResumabilityConfig(is_resumable=True))
        runner = Runner(app=app, session_service=sessions)
        if mode == "start":
            await sessions.create_session(app_name={app!r}, user_id={user!r}, session_id={session!r})
            message = types.Content(role="user", parts=[types.Part(text="0")])
            async for event in runner.run_async(user_id={user!r}, session_id={session!r}, new_message=message):
                pass
        else:
            session = await sessions.get_session(app_name={app!r}, user_id={user!r}, session_id={session!r})
            async for event in runner.run_async(
                user_id={user!r}, session_id={session!r}, invocation_id=session.events[0].invocation_id
            ):
                pass
        await sessions.close()

    asyncio.run(main(int(sys.argv[4]), sys.argv[5]))
    """
).format(repo=str(REPO), app=APP, user=USER, session=SESSION)


async def test_a_process_killed_mid_workflow_is_resumed_by_another_without_rerunning_nodes(shared_store_url, tmp_path):
    script, counts = tmp_path / "child.py", tmp_path / "runs.txt"
    script.write_text(CHILD)
    nodes, die_at = 12, 7

    def child(mode, env):
        return subprocess.run(
            [sys.executable, str(script), shared_store_url, str(counts), str(die_at), str(nodes), mode],
            capture_output=True, text=True, timeout=120, env={**env, "PYTHONPATH": str(REPO)},
        )

    import os

    first = child("start", {**os.environ, "CHILD": "1"})
    assert first.returncode == 17, first.stderr
    assert counts.read_text().split() == [f"n{i}" for i in range(die_at + 1)]

    second = child("resume", {**os.environ, "CHILD": "0"})
    assert second.returncode == 0, second.stderr
    runs = counts.read_text().split()
    # every node ran once, except the one the kill interrupted: it ran again (it had no output)
    assert sorted(runs) == sorted([f"n{i}" for i in range(nodes)] + [f"n{die_at}"])
    assert runs[die_at + 1:] == [f"n{i}" for i in range(die_at, nodes)]

    sessions = session_service_from_url(shared_store_url)
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    node_runs = fold_all(session.log_events()).nodes
    assert [r.status for r in node_runs.values()] == ["completed"] * nodes
    assert node_runs[f"wf@1/n{nodes - 1}@1"].output == nodes
    assert node_runs[f"wf@1/n{die_at}@1"].input == die_at
    assert {e.invocation_id for e in session.events} == {session.events[0].invocation_id}
    assert session.events[-1].actions.end_of_agent
    await sessions.close()
