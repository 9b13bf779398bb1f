"""RequestInput from a node: the invocation pauses on an `adk_request_input` call, and the answer,
sent after a restart (a new service and Runner on the same store), resumes it from the log."""

from __future__ import annotations

import pytest
from google.genai import types

from projections.workflow import fold_all
from runtime import App, ResumabilityConfig, Runner, session_service_from_url
from runtime.workflow import START, RequestInput, Workflow, WorkflowDataError, node

APP, USER, SESSION = "wf_input", "u1", "s1"


def build(ran: list[str], *, rerun: bool) -> Workflow:
    def draft(node_input: str):
        ran.append("draft")
        return f"draft of {node_input}"

    @node(rerun_on_resume=rerun)
    async def approve(ctx, node_input: str):
        ran.append("approve")
        if not ctx.resume_inputs:
            yield RequestInput(interrupt_id="ask-1", message=f"Approve {node_input}?")
            return
        yield f"{node_input}: {ctx.resume_inputs['ask-1']['verdict']}"

    def publish(node_input):
        ran.append("publish")
        return node_input

    nested = Workflow(name="review", edges=[(START, approve)])
    return Workflow(name="wf", edges=[(START, draft, nested, publish)])


def app(workflow):
    return App(name=APP, root_agent=workflow, resumability_config=ResumabilityConfig(is_resumable=True))


def answer(verdict: str) -> types.Content:
    response = types.FunctionResponse(id="ask-1", name="adk_request_input", response={"verdict": verdict})
    return types.Content(role="user", parts=[types.Part(function_response=response)])


async def test_a_node_asks_for_input_and_the_answer_after_a_restart_resumes_the_run(shared_store_url):
    ran: list[str] = []
    sessions = session_service_from_url(shared_store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    runner = Runner(app=app(build(ran, rerun=True)), session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="the post")])
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]
    await sessions.close()

    [ask] = [e for e in events if e.get_function_calls()]
    call = ask.get_function_calls()[0]
    assert (call.name, call.id, call.args["message"]) == ("adk_request_input", "ask-1", "Approve draft of the post?")
    assert ask.long_running_tool_ids == {"ask-1"} and ask.node_info.path == "wf@1/review@1/approve@1"
    assert ran == ["draft", "approve"]
    assert not any(e.actions.end_of_agent for e in events)  # paused, not finished

    # Another process (a new service and Runner): the answer alone finds and resumes the invocation.
    ran.clear()
    sessions = session_service_from_url(shared_store_url)
    paused = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert fold_all(paused.events).nodes["wf@1/review@1/approve@1"].status == "waiting"
    runner = Runner(app=app(build(ran, rerun=True)), session_service=sessions)
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=answer("yes"))]
    assert ran == ["approve", "publish"]  # draft finished before the pause: not run again
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    runs = fold_all(session.log_events()).nodes
    assert runs["wf@1/publish@1"].output == "draft of the post: yes"
    assert runs["wf@1/review@1/approve@1"].status == "completed"
    assert {e.invocation_id for e in session.events} == {events[0].invocation_id}
    assert session.events[-1].actions.end_of_agent
    await sessions.close()


async def test_without_rerun_on_resume_the_answer_is_the_nodes_output(store_url):
    ran: list[str] = []
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    runner = Runner(app=app(build(ran, rerun=False)), session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="the post")])
    [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]
    ran.clear()
    [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=answer("no"))]
    assert ran == ["publish"]  # approve was not run again
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert fold_all(session.log_events()).nodes["wf@1/publish@1"].output == {"verdict": "no"}
    await sessions.close()


async def test_an_answer_is_shaped_by_the_requests_response_schema(store_url):
    """As google-adk 2.13: the answer to a request with a response_schema is checked against it,
    its optional fields None when missing; one that does not fit fails the node."""
    from pydantic import BaseModel

    class Decision(BaseModel):
        approved: bool
        days: int | None = None

    seen: list = []

    @node(rerun_on_resume=True)
    def decide(ctx):
        if not ctx.resume_inputs:
            yield RequestInput(interrupt_id="ask-2", message="Approve?", response_schema=Decision)
            return
        seen.append(ctx.resume_inputs["ask-2"])
        yield "decided"

    sessions = session_service_from_url(store_url)

    async def send(session_id: str, message: types.Content) -> list:
        runner = Runner(app=app(Workflow(name="wf", edges=[(START, decide)])), session_service=sessions)
        return [e async for e in runner.run_async(user_id=USER, session_id=session_id, new_message=message)]

    def reply(text: str) -> types.Content:
        response = types.FunctionResponse(id="ask-2", name="adk_request_input", response={"result": text})
        return types.Content(role="user", parts=[types.Part(function_response=response)])

    for session_id, text in (("fits", '{"approved": "true"}'), ("unfit", '{"days": 3}')):
        await sessions.create_session(app_name=APP, user_id=USER, session_id=session_id)
        await send(session_id, types.Content(role="user", parts=[types.Part(text="leave")]))
        if session_id == "fits":
            await send(session_id, reply(text))
            assert seen == [{"approved": True, "days": None}]
        else:
            with pytest.raises(WorkflowDataError, match="response_schema"):  # no `approved`
                await send(session_id, reply(text))
    await sessions.close()


async def test_the_users_message_is_a_nodes_input_again_when_it_runs_after_a_restart(shared_store_url):
    """As google-adk 2.13: the nodes after START get the message itself (a Content, with every
    part); a node that asks and runs again after a restart gets the same message back from the log."""
    seen: list = []

    @node(rerun_on_resume=True)
    async def look(ctx, node_input):
        seen.append(node_input)
        if not ctx.resume_inputs:
            yield RequestInput(interrupt_id="ask-1", message="Go on?")
            return
        yield "done"

    flow = Workflow(name="wf", edges=[(START, look)])
    message = types.Content(role="user", parts=[
        types.Part(text="see"), types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG")),
    ])
    sessions = session_service_from_url(shared_store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id="message-input")
    runner = Runner(app=app(flow), session_service=sessions)
    _ = [e async for e in runner.run_async(user_id=USER, session_id="message-input", new_message=message)]
    await sessions.close()

    sessions = session_service_from_url(shared_store_url)  # another process: the input comes from the log
    runner = Runner(app=app(flow), session_service=sessions)
    _ = [e async for e in runner.run_async(user_id=USER, session_id="message-input", new_message=answer("yes"))]
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id="message-input")
    await sessions.close()
    assert seen == [message, message]
    assert fold_all(session.log_events()).nodes["wf@1/look@1"].output == "done"
