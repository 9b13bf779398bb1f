"""Node options of ADK 2.13: require_confirmation (a person approves a run, answered after a
restart), parallel_worker and max_parallel_workers, tools as nodes, and wait_for_output."""

from __future__ import annotations

import asyncio

import pytest
from google.genai import types

from projections.pending import open_requests
from projections.workflow import fold_all
from runtime import App, ResumabilityConfig, Runner, session_service_from_url
from runtime.tools import FunctionTool, ToolContext
from runtime.workflow import (
    START,
    FunctionNode,
    ParallelWorker,
    ToolNode,
    Workflow,
    WorkflowConfigurationError,
    node,
)

APP, USER, SESSION = "wf_nodes", "u1", "s1"


def app(workflow: Workflow) -> App:
    return App(name=APP, root_agent=workflow, resumability_config=ResumabilityConfig(is_resumable=True))


async def run(sessions, workflow, message: types.Content, *, create: bool = True):
    if create:
        await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    runner = Runner(app=app(workflow), session_service=sessions)
    return [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]


def text(value: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=value)])


def confirmation_answer(call_id: str, confirmed: bool) -> types.Content:
    response = types.FunctionResponse(id=call_id, name="adk_request_input", response={"confirmed": confirmed})
    return types.Content(role="user", parts=[types.Part(function_response=response)])


async def runs_of(sessions):
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    return fold_all(session.log_events()).nodes, session


# -- require_confirmation ----------------------------------------------------------------------


def payments(paid: list[int]) -> Workflow:
    def amount(node_input: str) -> int:
        return int(node_input)

    @node(require_confirmation=lambda node_input: node_input > 100)
    def pay(node_input: int) -> str:
        paid.append(node_input)
        return f"paid {node_input}"

    return Workflow(name="wf", edges=[(START, amount, pay)])


@pytest.mark.parametrize("confirmed", [True, False])
async def test_a_node_that_requires_confirmation_waits_for_it_across_a_restart(shared_store_url, confirmed):
    paid: list[int] = []
    sessions = session_service_from_url(shared_store_url)
    events = await run(sessions, payments(paid), text("250"))
    assert paid == []
    [request] = open_requests((await runs_of(sessions))[1].events).values()
    assert (request.kind, request.call_id, request.agent) == ("input", "wf_tool_confirmation:wf@1/pay@1", "wf")
    assert request.args["payload"] == {"tool_name": "pay", "args": {"node_input": 250}}
    assert not any(e.actions.end_of_agent for e in events)  # paused
    await sessions.close()

    # Another process answers: the node runs again, and runs the function only if approved.
    sessions = session_service_from_url(shared_store_url)
    await run(sessions, payments(paid), confirmation_answer(request.call_id, confirmed), create=False)
    nodes, session = await runs_of(sessions)
    assert paid == ([250] if confirmed else [])
    assert nodes["wf@1/pay@1"].output == ("paid 250" if confirmed else {"error": "This tool call is rejected."})
    assert nodes["wf@1/amount@1"].status == "completed" and not open_requests(session.events)
    await sessions.close()


def transfers(moved: list) -> Workflow:
    def transfer(amount: int, tool_context: ToolContext) -> dict:
        """Moves money; a large amount needs a person's yes, which the tool asks for itself."""
        confirmation = tool_context.tool_confirmation
        if amount > 100 and confirmation is None:
            tool_context.request_confirmation(hint=f"Move {amount}?", payload={"limit": 100})
            return {"status": "waiting"}
        if confirmation is not None and not confirmation.confirmed:
            return {"status": "refused"}
        moved.append((amount, confirmation.payload if confirmation else None))
        return {"status": "moved"}

    return Workflow(name="wf", edges=[(START, FunctionTool(transfer))])


@pytest.mark.parametrize("confirmed", [True, False])
async def test_a_tool_node_whose_tool_asks_for_confirmation_itself_waits_across_a_restart(shared_store_url, confirmed):
    """As google-adk 2.13: the tool's `request_confirmation` is the node's request (its hint the
    message, its payload beside the call's arguments); the answer runs the tool again, which reads
    it (a rejection too: the tool decides)."""
    moved: list = []
    sessions = session_service_from_url(shared_store_url)
    await run(sessions, transfers(moved), text('{"amount": 250}'))
    nodes, session = await runs_of(sessions)
    [request] = open_requests(session.events).values()
    assert (request.kind, request.call_id) == ("input", "wf_tool_confirmation:wf@1/transfer@1")
    assert request.args["message"] == "Move 250?"
    assert request.args["payload"] == {"tool_name": "transfer", "args": {"amount": 250}, "confirmation_payload": {"limit": 100}}
    assert moved == [] and nodes["wf@1/transfer@1"].status == "waiting"
    await sessions.close()

    sessions = session_service_from_url(shared_store_url)
    answer = types.FunctionResponse(id=request.call_id, name="adk_request_input",
                                    response={"confirmed": confirmed, "payload": {"limit": 500}})
    await run(sessions, transfers(moved), types.Content(role="user", parts=[types.Part(function_response=answer)]),
              create=False)
    nodes, session = await runs_of(sessions)
    assert moved == ([(250, {"limit": 500})] if confirmed else [])
    assert nodes["wf@1/transfer@1"].output == {"status": "moved" if confirmed else "refused"}
    assert not open_requests(session.events)
    await sessions.close()


async def test_a_confirmation_policy_that_says_no_lets_the_node_run_at_once(store_url):
    paid: list[int] = []
    sessions = session_service_from_url(store_url)
    await run(sessions, payments(paid), text("40"))
    nodes, session = await runs_of(sessions)
    assert paid == [40] and nodes["wf@1/pay@1"].output == "paid 40" and not open_requests(session.events)
    await sessions.close()


def test_require_confirmation_needs_rerun_on_resume_which_node_turns_on():
    def act():
        return 1

    with pytest.raises(WorkflowConfigurationError, match="rerun_on_resume"):
        FunctionNode(act, require_confirmation=True)
    assert node(act, require_confirmation=True).rerun_on_resume is True
    with pytest.raises(WorkflowConfigurationError, match="rerun_on_resume"):
        FunctionNode(act, require_confirmation=True, rerun_on_resume=False)
    with pytest.raises(WorkflowConfigurationError, match="function and tool nodes"):
        node(Workflow(name="inner", edges=[(START, act)]), require_confirmation=True)


# -- parallel_worker ---------------------------------------------------------------------------


async def test_a_parallel_worker_runs_once_per_item_at_most_n_at_once(store_url):
    running, most = [0], [0]

    @node(parallel_worker=True, max_parallel_workers=2)
    async def square(node_input: int) -> int:
        running[0] += 1
        most[0] = max(most[0], running[0])
        await asyncio.sleep(0.02)
        running[0] -= 1
        return node_input * node_input

    def items(node_input: str) -> list[int]:
        return [int(x) for x in node_input.split(",")]

    sessions = session_service_from_url(store_url)
    await run(sessions, Workflow(name="wf", edges=[(START, items, square)]), text("1,2,3,4,5"))
    nodes, _ = await runs_of(sessions)
    assert isinstance(square, ParallelWorker) and square.name == "square"
    assert nodes["wf@1/square@1"].output == [1, 4, 9, 16, 25]  # in input order
    assert [nodes[f"wf@1/square@1/square@{k}"].input for k in range(1, 6)] == [1, 2, 3, 4, 5]
    assert most[0] == 2
    await sessions.close()


async def test_a_failing_item_fails_the_worker_and_a_resume_runs_only_the_unfinished_items(store_url):
    ran: list[int] = []
    broken = {3}

    def build() -> Workflow:
        @node(parallel_worker=True, max_parallel_workers=1)
        def check(node_input: int) -> int:
            ran.append(node_input)
            if node_input in broken:
                raise ValueError(f"item {node_input} is broken")
            return node_input

        def items(node_input):
            return [1, 2, 3, 4]

        return Workflow(name="wf", edges=[(START, items, check)])

    sessions = session_service_from_url(store_url)
    with pytest.raises(ValueError, match="item 3"):
        await run(sessions, build(), text("go"))
    nodes, session = await runs_of(sessions)
    assert ran == [1, 2, 3] and nodes["wf@1/check@1"].status == "failed"
    broken.clear()
    ran.clear()
    runner = Runner(app=app(build()), session_service=sessions)
    [e async for e in runner.run_async(user_id=USER, session_id=SESSION, invocation_id=session.events[-1].invocation_id)]
    nodes, _ = await runs_of(sessions)
    assert ran == [3, 4] and nodes["wf@1/check@1"].output == [1, 2, 3, 4]
    await sessions.close()


async def test_items_of_a_parallel_worker_that_need_confirmation_wait_together_and_resume_when_answered(store_url):
    paid: list[int] = []

    def build() -> Workflow:
        @node(parallel_worker=True, require_confirmation=lambda node_input: node_input > 100)
        def pay(node_input: int) -> int:
            paid.append(node_input)
            return node_input

        def amounts(node_input: str) -> list[int]:
            return [int(x) for x in node_input.split(",")]

        return Workflow(name="wf", edges=[(START, amounts, pay)])

    sessions = session_service_from_url(store_url)
    await run(sessions, build(), text("50,500,700"))
    nodes, session = await runs_of(sessions)
    asked = sorted(open_requests(session.events))
    assert asked == ["wf_tool_confirmation:wf@1/pay@1/pay@2", "wf_tool_confirmation:wf@1/pay@1/pay@3"]
    assert paid == [50] and nodes["wf@1/pay@1"].status == "waiting" and sorted(nodes["wf@1/pay@1"].interrupts) == asked

    answers = [types.Part(function_response=types.FunctionResponse(id=i, name="adk_request_input", response={"confirmed": ok}))
               for i, ok in zip(asked, (True, False))]
    await run(sessions, build(), types.Content(role="user", parts=answers), create=False)
    nodes, _ = await runs_of(sessions)
    assert paid == [50, 500]  # the first item did not run again; the rejected one never ran
    assert nodes["wf@1/pay@1"].output == [50, 500, {"error": "This tool call is rejected."}]
    await sessions.close()


def test_max_parallel_workers_is_checked_when_the_node_is_built():
    def work(node_input):
        return node_input

    with pytest.raises(WorkflowConfigurationError, match="only be set when parallel_worker"):
        node(work, max_parallel_workers=2)
    with pytest.raises(WorkflowConfigurationError, match="greater than or equal to 1"):
        node(work, parallel_worker=True, max_parallel_workers=0)


# -- tools as nodes ----------------------------------------------------------------------------


async def test_a_tool_in_the_edges_runs_as_a_node_with_its_arguments_from_input_and_state(store_url):
    def convert(amount: float, currency: str, tool_context) -> dict:
        """Converts an amount."""
        tool_context.state["converted"] = True
        return {"value": amount * 2, "currency": currency}

    def order(node_input: str) -> dict:
        return {"amount": float(node_input)}

    tool = FunctionTool(convert)
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION, state={"currency": "EUR"})
    await run(sessions, Workflow(name="wf", edges=[(START, order, tool)]), text("21"), create=False)
    nodes, session = await runs_of(sessions)
    assert nodes["wf@1/convert@1"].output == {"value": 42.0, "currency": "EUR"}
    assert session.state["converted"] is True
    await sessions.close()


async def test_a_tool_that_requires_confirmation_asks_before_it_runs(store_url):
    deleted: list[str] = []

    def delete(path: str) -> str:
        deleted.append(path)
        return "deleted"

    workflow = Workflow(name="wf", edges=[(START, FunctionTool(delete, require_confirmation=True))])
    assert isinstance(workflow.graph.nodes["delete"], ToolNode)
    sessions = session_service_from_url(store_url)
    await run(sessions, workflow, text("/tmp/x"))
    [request] = open_requests((await runs_of(sessions))[1].events).values()
    assert deleted == [] and request.args["payload"] == {"tool_name": "delete", "args": {"path": "/tmp/x"}}
    await run(sessions, workflow, confirmation_answer(request.call_id, True), create=False)
    nodes, _ = await runs_of(sessions)
    assert deleted == ["/tmp/x"] and nodes["wf@1/delete@1"].output == "deleted"
    await sessions.close()


# -- wait_for_output ---------------------------------------------------------------------------


async def test_a_node_with_wait_for_output_waits_until_a_run_gives_an_output(store_url):
    def left(node_input):
        return "L"

    def right(node_input):
        return "R"

    def gather(ctx, node_input):
        seen = ctx.state.get("seen", []) + [node_input]
        ctx.state["seen"] = seen
        return seen if len(seen) == 2 else None

    reported: list = []

    def report(node_input):
        reported.append(node_input)
        return node_input

    collect = FunctionNode(gather, wait_for_output=True)
    sessions = session_service_from_url(store_url)
    await run(sessions, Workflow(name="wf", edges=[(START, (left, right), collect, report)]), text("go"))
    nodes, session = await runs_of(sessions)
    assert nodes["wf@1/gather@1"].status == "waiting" and nodes["wf@1/gather@2"].status == "completed"
    assert reported == [["L", "R"]]  # triggered once, by the run that gave an output
    assert session.events[-1].actions.end_of_agent  # a node waiting for output does not pause the run
    await sessions.close()


# -- where sync nodes run ----------------------------------------------------------------------


async def test_sync_nodes_run_on_the_loop_unless_the_run_asks_for_a_tool_thread_pool():
    import threading

    from runtime.run_config import RunConfig, ToolThreadPoolConfig

    seen: list[tuple[str, int]] = []

    def plain(node_input: str) -> str:
        seen.append(("plain", threading.get_ident()))
        return node_input

    def steps(node_input: str):
        seen.append(("generator", threading.get_ident()))
        yield node_input + "!"

    workflow = Workflow(name="wf", edges=[(START, plain, steps)])
    sessions = session_service_from_url("memory://")
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    runner = Runner(app=app(workflow), session_service=sessions)
    loop_thread = threading.get_ident()
    pooled = RunConfig(tool_thread_pool_config=ToolThreadPoolConfig(max_workers=2))
    for run_config in (None, pooled):
        seen.clear()
        events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=text("hi"),
                                                    run_config=run_config)]
        assert [kind for kind, _ in seen] == ["plain", "generator"]
        on_loop = {thread == loop_thread for _, thread in seen}
        assert on_loop == ({True} if run_config is None else {False})
        assert any(e.output == "hi!" for e in events if getattr(e, "output", None) is not None)
