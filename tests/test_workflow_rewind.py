"""Rewinding before a workflow invocation and forking a session work for workflow runs as for
agent runs: the fold sees only the history that counts, and a fork can resume a failed run."""

from __future__ import annotations

from google.genai import types

from projections.workflow import fold_all
from runtime import App, ResumabilityConfig, Runner, session_service_from_url
from runtime.workflow import START, Workflow

APP, USER, SESSION = "wf_rewind", "u1", "s1"


def counting_workflow(ran: list[str], broken: bool = False) -> Workflow:
    def bump(ctx, total: int = 0):
        ran.append("bump")
        ctx.state["total"] = total + 1
        return total + 1

    def check(node_input):
        ran.append("check")
        if broken:
            raise RuntimeError("check is broken")
        return f"total {node_input}"

    return Workflow(name="wf", edges=[(START, bump, check)])


async def send(runner, session_id=SESSION):
    message = types.Content(role="user", parts=[types.Part(text="go")])
    return [e async for e in runner.run_async(user_id=USER, session_id=session_id, new_message=message)]


async def test_rewinding_before_a_workflow_invocation_takes_back_its_node_runs_and_state(store_url):
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    ran: list[str] = []
    runner = Runner(app=App(name=APP, root_agent=counting_workflow(ran)), session_service=sessions)
    first = await send(runner)
    second = await send(runner)
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert session.state["total"] == 2 and len(fold_all(session.log_events()).invocations) == 2

    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=second[0].invocation_id)
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    runs = fold_all(session.log_events())
    assert session.state["total"] == 1
    assert list(runs.invocations) == [first[0].invocation_id]
    assert runs.nodes["wf@1/check@1"].output == "total 1"

    await send(runner)  # runs again from the rewound state
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert session.state["total"] == 2 and fold_all(session.log_events()).nodes["wf@1/check@1"].output == "total 2"
    await sessions.close()


async def test_a_fork_resumes_a_failed_workflow_run_and_leaves_the_source_alone(store_url):
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    ran: list[str] = []

    def app(broken):
        return App(name=APP, root_agent=counting_workflow(ran, broken),
                   resumability_config=ResumabilityConfig(is_resumable=True))

    try:
        await send(Runner(app=app(True), session_service=sessions))
    except RuntimeError:
        pass
    source = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    invocation = source.events[0].invocation_id
    fork = await sessions.fork_session(app_name=APP, user_id=USER, session_id=SESSION, new_session_id="what-if")

    ran.clear()
    runner = Runner(app=app(False), session_service=sessions)
    events = [e async for e in runner.run_async(user_id=USER, session_id=fork.id, invocation_id=invocation)]
    assert ran == ["check"]  # bump had finished before the fork: its output comes from the log
    # bump's output is said again (as google-adk 2.13 in a resumable app), check's is new
    assert [e.output for e in events if e.output is not None] == [1, "total 1"]
    forked = await sessions.get_session(app_name=APP, user_id=USER, session_id=fork.id)
    assert forked.state["total"] == 1 and fold_all(forked.log_events()).nodes["wf@1/check@1"].status == "completed"
    source = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert fold_all(source.log_events()).nodes["wf@1/check@1"].status == "failed"
    await sessions.close()
