"""Facts ADK has no event for stay in the log but out of what ADK clients see: a node that ends
with nothing more to say, an answer taken as a node's output. `run_async` does not yield them,
`session.events` does not hold them (after a restart too); `session.log_events()` has them, and a
resume reads them, so a node they say finished is not run again."""

from __future__ import annotations

from google.genai import types

from domain.events import Event
from domain.log_only import is_log_only
from projections.workflow import fold_all
from runtime import App, ResumabilityConfig, Runner, session_service_from_url
from runtime.workflow import START, RequestInput, Workflow, node
from tests.test_workflow_graph import run_workflow

APP, USER, SESSION = "wf_log_only", "u1", "s1"


def said(events):
    return [(e.node_info.path, e.text() or None, e.output) for e in events]


async def test_a_node_that_only_says_a_message_ends_on_no_event_a_client_sees(store_url):
    def greet(node_input: str):
        yield Event(message=f"Hello, {node_input}.")

    def reply():
        return "done"

    events, session = await run_workflow(store_url, Workflow(name="wf", edges=[(START, greet, reply)]), "Ann")
    assert said(events) == [("wf@1/greet@1", "Hello, Ann.", None), ("wf@1/reply@1", None, "done")]
    assert [e.id for e in session.events[1:]] == [e.id for e in events]  # as read back from the store
    [hidden] = [e for e in session.log_events() if is_log_only(e)]
    assert hidden.node_info.path == "wf@1/greet@1" and hidden.content is None
    assert fold_all(session.log_events()).nodes["wf@1/greet@1"].status == "completed"


def build(ran: list[str], *, rerun: bool) -> Workflow:
    def note(node_input: str):
        ran.append("note")
        yield Event(message=f"Reviewing {node_input}.")

    @node(rerun_on_resume=rerun)
    async def approve(ctx):
        ran.append("approve")
        if not ctx.resume_inputs:
            yield RequestInput(interrupt_id="ask-1", message="Approve?")
            return
        yield f"answered {ctx.resume_inputs['ask-1']['verdict']}"

    def publish(node_input):
        ran.append("publish")
        return node_input

    return Workflow(name="wf", edges=[(START, note, approve, publish)])


def answer(verdict: str) -> types.Content:
    response = types.FunctionResponse(id="ask-1", name="adk_request_input", response={"verdict": verdict})
    return types.Content(role="user", parts=[types.Part(function_response=response)])


async def run(url: str, ran: list[str], message: types.Content, *, rerun: bool):
    sessions = session_service_from_url(url)
    if await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION) is None:
        await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    app = App(name=APP, root_agent=build(ran, rerun=rerun), resumability_config=ResumabilityConfig(is_resumable=True))
    runner = Runner(app=app, session_service=sessions)
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    await sessions.close()
    return events, session


async def test_after_a_restart_a_node_that_ended_silently_is_not_run_again(shared_store_url):
    ran: list[str] = []
    await run(shared_store_url, ran, types.Content(role="user", parts=[types.Part(text="the post")]), rerun=True)
    assert ran == ["note", "approve"]
    ran.clear()
    events, session = await run(shared_store_url, ran, answer("yes"), rerun=True)  # a new service and Runner
    assert ran == ["approve", "publish"]  # note's end is only in the log, and was read there
    assert not any(is_log_only(e) for e in events + session.events)
    assert fold_all(session.log_events()).nodes["wf@1/publish@1"].output == "answered yes"


async def test_an_answer_taken_as_the_nodes_output_is_said_as_adk_says_it(shared_store_url):
    ran: list[str] = []
    await run(shared_store_url, ran, types.Content(role="user", parts=[types.Part(text="the post")]), rerun=False)
    ran.clear()
    events, session = await run(shared_store_url, ran, answer("no"), rerun=False)
    assert ran == ["publish"]
    # approve does not run: in a resumable app google-adk 2.13 says its output (the answer) again, with
    # no checkpoint of a run; its completion fact is log-only
    said = [(e.node_info.path, e.output) for e in events if e.node_info.path and e.output is not None]
    assert said[0] == ("wf@1/approve@1", {"verdict": "no"})
    assert [s["nodes"]["approve"]["status"] for s in (e.actions.agent_state for e in events) if s] == [3, 3]  # publish starts, ends
    runs = fold_all(session.log_events()).nodes
    assert runs["wf@1/approve@1"].output == {"verdict": "no"} and runs["wf@1/publish@1"].output == {"verdict": "no"}


async def test_a_dynamic_childs_error_is_told_once_and_its_parent_is_recorded_failed(store_url):
    def check(node_input: str):
        raise ValueError(f"cannot check {node_input}")

    @node(rerun_on_resume=True)
    async def orchestrate(ctx, node_input: str):
        yield await ctx.run_node(check, node_input)

    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    runner = Runner(app=App(name=APP, root_agent=Workflow(name="wf", edges=[(START, orchestrate)])), session_service=sessions)
    events = []
    try:
        async for event in runner.run_async(
            user_id=USER, session_id=SESSION, new_message=types.Content(role="user", parts=[types.Part(text="it")])
        ):
            events.append(event)
    except ValueError as error:
        assert str(error) == "cannot check it"
    else:
        raise AssertionError("the child's error was not raised")
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert [(e.author, e.node_info.path, e.error_code) for e in events] == [("wf", "wf@1/orchestrate@1/check@1", "ValueError")]
    assert [e.id for e in session.events[1:]] == [e.id for e in events]
    runs = fold_all(session.log_events()).nodes
    assert runs["wf@1/orchestrate@1"].status == runs["wf@1/orchestrate@1/check@1"].status == "failed"
    await sessions.close()
