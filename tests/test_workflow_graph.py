"""Workflow graphs: building and refusing malformed graphs, and running chains, fan-out, joins and
routes under a real Runner on every store, with each node's life in the log."""

from __future__ import annotations

import pytest
from google.genai import types

from domain.errors import InvalidArgumentError
from projections.workflow import NODE_FACT_KEY, fold_all
from runtime import App, Runner, session_service_from_url
from runtime.workflow import (
    DEFAULT_ROUTE,
    START,
    Edge,
    FunctionNode,
    GraphValidationError,
    JoinNode,
    Workflow,
    WorkflowConfigurationError,
    node,
)
from domain.events import Event

APP, USER, SESSION = "wf_app", "u1", "s1"


async def run_workflow(store_url: str, workflow: Workflow, text: str = "go", state=None, session_id=SESSION):
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=session_id, state=state)
    runner = Runner(app=App(name=APP, root_agent=workflow), session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text=text)])
    events = [e async for e in runner.run_async(user_id=USER, session_id=session_id, new_message=message)]
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=session_id)
    await sessions.close()
    return events, session


def statuses(session) -> dict[str, str]:
    return {run.path: run.status for run in fold_all(session.log_events()).nodes.values()}


# -- building --------------------------------------------------------------------------------


def step(node_input: str):
    return node_input


def other(node_input: str):
    return node_input


def test_a_graph_names_its_nodes_and_edges():
    wf = Workflow(name="wf", edges=[(START, step, (other, JoinNode(name="join")))])
    assert list(wf.graph.nodes) == ["__START__", "step", "other", "join"]
    assert wf.graph.terminal == ["other", "join"]


@pytest.mark.parametrize(
    "edges, message",
    [
        ([(START, step), (step, START)], "into START"),
        ([(START, step), (START, FunctionNode(other, name="step"))], "Duplicate node names"),
        ([(START, step, 42)], "Unknown node"),
        ([(START, step, {"a": 42})], "Unknown node"),
        ([(START, step, {})], "route map"),
        ([(step, other)], "no edge from START"),
        ([(START, step), (other, step)], "cannot be reached"),
        ([(START, step, other), (other, step)], "Unconditional cycle"),
        ([Edge(from_node=START, to_node=step, route="x")], "from START"),
        ([(START, step), (START, step)], "Duplicate edge"),
        (["START -> step"], "tuple"),
    ],
)
def test_a_malformed_graph_is_refused_when_built(edges, message):
    with pytest.raises(GraphValidationError if message != "tuple" else WorkflowConfigurationError, match=message) as info:
        Workflow(name="wf", edges=edges)
    assert isinstance(info.value, InvalidArgumentError)


def test_node_names_must_be_identifiers():
    with pytest.raises(InvalidArgumentError):
        FunctionNode(step, name="not a name")


# -- running -----------------------------------------------------------------------------------


async def test_a_chain_hands_each_output_to_the_next_node(store_url):
    def double(node_input: str) -> str:
        return node_input * 2

    @node(name="shout")
    async def shout(node_input: str) -> str:
        return node_input.upper()

    events, session = await run_workflow(store_url, Workflow(name="wf", edges=[(START, double, shout)]), "ab")
    outputs = {e.node_info.path: e.output for e in session.events if e.output is not None}
    assert outputs == {"wf@1/double@1": "abab", "wf@1/shout@1": "ABAB"}
    # a quick node's start and end are one event (one commit): its completed fact says both
    facts = [(e.node_info.path, e.custom_metadata[NODE_FACT_KEY]) for e in session.events if e.node_info.path]
    assert [(path, f["status"], f["input"]) for path, f in facts] == [
        ("wf@1/double@1", "completed", {"parts": [{"text": "ab"}], "role": "user"}),  # the message, as ADK hands it
        ("wf@1/shout@1", "completed", "abab"),
    ]
    assert [e.author for e in session.events[1:]] == ["wf", "wf"]  # as ADK: a function node's events are the workflow's
    assert [e.id for e in events] == [e.id for e in session.events[1:]]  # every event was committed


async def test_a_slow_node_has_its_start_recorded_with_its_first_event(store_url):
    import asyncio

    seen = []

    async def slow(ctx, node_input: str):
        yield Event(message="on it")
        await asyncio.sleep(0.3)
        seen.extend(e.custom_metadata[NODE_FACT_KEY]["status"] for e in ctx.session.events if e.custom_metadata)
        yield node_input

    _, session = await run_workflow(store_url, Workflow(name="wf", edges=[(START, slow)]), "zz")
    assert seen == ["started"]  # committed with its message, before the node finished
    run = fold_all(session.log_events()).nodes["wf@1/slow@1"]
    message = types.Content(role="user", parts=[types.Part(text="zz")])  # its input, the user's message
    assert (run.status, run.input, run.output) == ("completed", message, "zz") and run.seconds >= 0.3


async def test_fan_out_then_join_waits_for_every_branch(store_url):
    def split(node_input: str):
        return node_input

    def left(node_input: str):
        return "L" + node_input

    def right(node_input: str):
        return "R" + node_input

    def finish(node_input: dict):
        return sorted(node_input.items())

    join = JoinNode(name="both")
    wf = Workflow(name="wf", edges=[(START, split, (left, right), join, finish)])
    _, session = await run_workflow(store_url, wf, "x")
    runs = fold_all(session.log_events()).nodes
    assert runs["wf@1/both@1"].output == {"left": "Lx", "right": "Rx"}
    assert runs["wf@1/finish@1"].output == [["left", "Lx"], ["right", "Rx"]]
    assert set(statuses(session).values()) == {"completed"}
    assert len(runs) == 5  # the join ran once, after both branches


async def test_routes_choose_the_branch_and_default_route_catches_the_rest(store_url):
    def classify(node_input: str):
        return Event(output=node_input, route="big" if len(node_input) > 3 else node_input)

    def big(node_input: str):
        return "big:" + node_input

    def small(node_input: str):
        return "small:" + node_input

    def fallback(node_input: str):
        return "other:" + node_input

    def wf():
        return Workflow(name="wf", edges=[(START, classify, {"big": big, "a": small, DEFAULT_ROUTE: fallback})])

    for text, expected in [("large", "wf@1/big@1"), ("a", "wf@1/small@1"), ("b", "wf@1/fallback@1")]:
        _, session = await run_workflow(store_url, wf(), text, session_id="s-" + text)
        ran = [p for p in statuses(session) if p != "wf@1/classify@1"]
        assert ran == [expected]
        assert fold_all(session.log_events()).nodes["wf@1/classify@1"].route == ("big" if text == "large" else text)


async def test_a_loop_gives_each_run_of_a_node_its_own_run_id(store_url):
    def count(counter: int = 0):
        return Event(output=counter + 1, state={"counter": counter + 1}, route="again" if counter + 1 < 3 else "done")

    def end(node_input):
        return f"ended at {node_input}"

    wf = Workflow(name="wf", edges=[(START, count, {"again": count, "done": end})])
    _, session = await run_workflow(store_url, wf)
    assert list(statuses(session)) == ["wf@1/count@1", "wf@1/count@2", "wf@1/count@3", "wf@1/end@1"]
    assert session.state["counter"] == 3
    assert fold_all(session.log_events()).nodes["wf@1/end@1"].output == "ended at 3"


async def test_parameters_come_from_state_and_ctx_writes_state(store_url):
    def greet(name: str, ctx, punctuation: str = "!"):
        ctx.state["greeted"] = name
        return f"hello {name}{punctuation}"

    _, session = await run_workflow(store_url, Workflow(name="wf", edges=[(START, greet)]), state={"name": "ada"})
    completed = [e for e in session.events if e.output is not None][0]
    assert completed.output == "hello ada!"
    assert completed.actions.state_delta == {"greeted": "ada"}
    assert session.state["greeted"] == "ada"


async def test_a_node_may_yield_messages_and_they_carry_its_node_info(store_url):
    async def talk(node_input: str):
        yield Event(message="thinking about " + node_input)
        yield "answer"

    events, session = await run_workflow(store_url, Workflow(name="wf", edges=[(START, talk)]), "it")
    message = [e for e in session.events if e.text()][1]
    assert message.text() == "thinking about it"
    assert message.node_info.path == "wf@1/talk@1" and message.author == "wf"  # as ADK: by the workflow
    assert fold_all(session.log_events()).nodes["wf@1/talk@1"].output == "answer"
    # as ADK: the message, then the output; the run's start rides on its first event
    assert [(e.text(), e.output) for e in session.events[1:]] == [("thinking about it", None), ("", "answer")]
    # as ADK, the node got the user's message (a Content); the fact keeps it, and says so
    said = {"parts": [{"text": "it"}], "role": "user"}
    assert message.custom_metadata[NODE_FACT_KEY] == {"status": "started", "input": said, "attempt": 1, "sources": [], "content": True}


async def test_a_nested_workflow_runs_under_its_node_path(store_url):
    def inner_step(node_input: str):
        return node_input + "!"

    inner = Workflow(name="inner", edges=[(START, inner_step)])

    def after(node_input: str):
        return node_input + "?"

    _, session = await run_workflow(store_url, Workflow(name="outer", edges=[(START, inner, after)]), "hi")
    runs = fold_all(session.log_events()).nodes
    assert list(runs) == ["outer@1/inner@1", "outer@1/inner@1/inner_step@1", "outer@1/after@1"]
    assert runs["outer@1/inner@1"].output == "hi!"
    assert runs["outer@1/after@1"].output == "hi!?"
