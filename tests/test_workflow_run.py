"""Workflow runs: state_schema refusals, retries and timeouts, max_concurrency, dynamic children,
an LlmAgent as a node, and the Runner forms (agent= and App(root_agent=)), on every store."""

from __future__ import annotations

import asyncio

import pytest
from google.genai import types
from pydantic import BaseModel

from domain.errors import InvalidArgumentError
from domain.events import Event
from projections.workflow import NODE_FACT_KEY, fold_all
from runtime import App, LlmAgent, Runner, ScriptedLlm, session_service_from_url
from runtime.workflow import (
    START,
    JoinNode,
    NodeTimeoutError,
    RetryConfig,
    StateSchemaError,
    Workflow,
    node,
)

APP, USER, SESSION = "wf_app", "u1", "s1"
NO_WAIT = dict(initial_delay=0, jitter=0)


class Setup:
    def __init__(self, store_url: str):
        self.sessions = session_service_from_url(store_url)

    async def run(self, workflow, text="go", *, state=None, session_id=SESSION):
        await self.sessions.create_session(app_name=APP, user_id=USER, session_id=session_id, state=state)
        runner = Runner(app=App(name=APP, root_agent=workflow), session_service=self.sessions)
        message = types.Content(role="user", parts=[types.Part(text=text)])
        return [e async for e in runner.run_async(user_id=USER, session_id=session_id, new_message=message)]

    async def session(self, session_id=SESSION):
        return await self.sessions.get_session(app_name=APP, user_id=USER, session_id=session_id)


@pytest.fixture
async def setup(store_url):
    s = Setup(store_url)
    yield s
    await s.sessions.close()


def facts(session, status):
    return [e for e in session.events if e.custom_metadata and e.custom_metadata[NODE_FACT_KEY]["status"] == status]


# -- state_schema ---------------------------------------------------------------------------


class Plan(BaseModel):
    topic: str = ""
    steps: int = 0


async def test_state_changes_that_fit_the_schema_are_stored(setup):
    def plan(ctx):
        ctx.state["topic"] = "tea"
        ctx.state["temp:scratch"] = object  # prefixed keys are not checked
        return Event(state={"steps": 3})

    await setup.run(Workflow(name="wf", edges=[(START, plan)], state_schema=Plan))
    session = await setup.session()
    assert session.state["topic"] == "tea" and session.state["steps"] == 3


@pytest.mark.parametrize(
    "write, message",
    [
        (lambda ctx: ctx.state.__setitem__("steps", "many"), "steps"),
        (lambda ctx: ctx.state.__setitem__("colour", "red"), "not declared"),
        (lambda ctx: Event(state={"steps": [1]}), "steps"),
    ],
)
async def test_a_state_change_outside_the_schema_raises_and_writes_nothing(setup, write, message):
    def plan(ctx):
        ctx.state["topic"] = "before"
        return write(ctx)

    with pytest.raises(StateSchemaError, match=message) as info:
        await setup.run(Workflow(name="wf", edges=[(START, plan)], state_schema=Plan))
    assert isinstance(info.value, InvalidArgumentError)
    session = await setup.session()
    assert "steps" not in session.state and "colour" not in session.state
    assert "topic" not in session.state  # the node failed: none of its changes were committed
    [failed] = facts(session, "failed")
    assert failed.error_code == "StateSchemaError" and failed.node_info.path == "wf@1/plan@1"


# -- retries and timeouts --------------------------------------------------------------------


async def test_a_failing_node_is_retried_and_each_retry_recorded(setup):
    attempts = []

    @node(retry_config=RetryConfig(max_attempts=3, exceptions=[ConnectionError], **NO_WAIT))
    def flaky(ctx):
        attempts.append(ctx.attempt_count)
        if len(attempts) < 3:
            raise ConnectionError("try again")
        return "ok"

    await setup.run(Workflow(name="wf", edges=[(START, flaky)]))
    session = await setup.session()
    assert attempts == [1, 2, 3]
    run = fold_all(session.log_events()).nodes["wf@1/flaky@1"]
    assert (run.status, run.output, run.retries, run.attempts) == ("completed", "ok", 2, 3)
    assert [e.custom_metadata[NODE_FACT_KEY]["attempt"] for e in facts(session, "retried")] == [1, 2]


async def test_retries_stop_at_max_attempts_and_skip_other_errors(setup):
    calls = []

    @node(retry_config=RetryConfig(max_attempts=2, exceptions=["ConnectionError"], **NO_WAIT))
    def broken(node_input: str):
        calls.append(node_input)
        raise (ConnectionError if node_input == "net" else KeyError)("nope")

    with pytest.raises(ConnectionError):
        await setup.run(Workflow(name="wf", edges=[(START, broken)]), "net")
    assert len(calls) == 2
    session = await setup.session()
    assert fold_all(session.log_events()).nodes["wf@1/broken@1"].status == "failed"


async def test_a_slow_node_times_out_and_a_retry_can_save_it(setup):
    tries = []

    @node(timeout=0.05, retry_config=RetryConfig(max_attempts=2, **NO_WAIT))
    async def slow():
        tries.append(1)
        if len(tries) == 1:
            await asyncio.sleep(5)
        return "fast enough"

    @node(timeout=0.05)
    async def hopeless():
        await asyncio.sleep(5)

    await setup.run(Workflow(name="wf", edges=[(START, slow)]))
    session = await setup.session()
    [retried] = facts(session, "retried")
    assert "NodeTimeoutError" in retried.custom_metadata[NODE_FACT_KEY]["error"]
    assert fold_all(session.log_events()).nodes["wf@1/slow@1"].output == "fast enough"

    with pytest.raises(NodeTimeoutError, match="hopeless"):
        await setup.run(Workflow(name="wf", edges=[(START, hopeless)]), session_id="s2")


async def test_a_failure_cancels_the_running_siblings_and_records_it(setup):
    async def fails():
        await asyncio.sleep(0.01)
        raise ValueError("bad")

    async def sleeps():
        yield Event(message="working on it")  # its start is recorded with this message
        await asyncio.sleep(5)

    async def waits():  # says nothing before it is stopped: the log has nothing of it to close
        await asyncio.sleep(5)

    with pytest.raises(ValueError, match="bad"):
        await setup.run(Workflow(name="wf", edges=[(START, (fails, sleeps, waits))]))
    session = await setup.session()
    assert {p: r.status for p, r in fold_all(session.log_events()).nodes.items()} == {
        "wf@1/sleeps@1": "cancelled", "wf@1/fails@1": "failed",
    }
    [failed] = facts(session, "failed")  # as ADK's error event: the error's class and message
    assert (failed.author, failed.error_code, failed.error_message) == ("wf", "ValueError", "bad")


# -- concurrency and dynamic children ----------------------------------------------------------


async def test_fan_out_runs_concurrently_up_to_max_concurrency(setup):
    running, peak = [0], [0]

    def worker(i):
        async def work():
            running[0] += 1
            peak[0] = max(peak[0], running[0])
            await asyncio.sleep(0.02)
            running[0] -= 1
            return i

        work.__name__ = f"w{i}"
        return work

    workers = tuple(worker(i) for i in range(6))
    await setup.run(Workflow(name="wf", edges=[(START, workers, JoinNode(name="all"))], max_concurrency=2))
    session = await setup.session()
    assert peak[0] == 2
    assert fold_all(session.log_events()).nodes["wf@1/all@1"].output == {f"w{i}": i for i in range(6)}


async def test_a_node_runs_dynamic_children_recorded_under_its_path(setup):
    def square(node_input: int) -> int:
        return node_input * node_input

    async def fan(ctx, node_input: str):
        results = [await ctx.run_node(square, n) for n in (2, 3)]
        return sum(results)

    await setup.run(Workflow(name="wf", edges=[(START, fan)]))
    runs = fold_all((await setup.session()).events).nodes
    assert list(runs) == ["wf@1/fan@1", "wf@1/fan@1/square@1", "wf@1/fan@1/square@2"]
    assert [runs[p].input for p in list(runs)[1:]] == [2, 3]
    assert runs["wf@1/fan@1"].output == 13


# -- agents as nodes, and the Runner forms ------------------------------------------------------


async def test_an_llm_agent_is_a_node_whose_answer_is_its_output(setup):
    agent = LlmAgent(name="writer", model=ScriptedLlm(["a haiku about tea"]), instruction="Write.")

    def publish(node_input: str) -> str:
        return node_input.upper()

    events = await setup.run(Workflow(name="wf", edges=[(START, agent, publish)]))
    session = await setup.session()
    answer = [e for e in session.events if e.text() == "a haiku about tea"]
    assert answer and answer[0].author == "writer" and answer[0].node_info.path == "wf@1/writer@1"
    assert fold_all(session.log_events()).nodes["wf@1/publish@1"].output == "A HAIKU ABOUT TEA"
    assert [e.id for e in events] == [e.id for e in session.events[1:]]


async def test_a_runner_takes_a_workflow_as_its_agent(store_url):
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)

    def echo(node_input: str):
        return node_input

    runner = Runner(agent=Workflow(name="wf", edges=[(START, echo)]), app_name=APP, session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="hi")])
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]
    assert [e.output for e in events if e.output is not None] == ["hi"]
    # a second message starts a new run, with its own facts
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert len(fold_all(session.log_events()).invocations) == 2
    await sessions.close()


@pytest.mark.parametrize("how", ["node", "app"])
async def test_any_node_can_be_the_runner_root_as_a_one_node_workflow(store_url, how):
    from runtime.workflow import FunctionNode

    def answer(node_input: str) -> str:
        return node_input[::-1]

    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    root = FunctionNode(func=answer)
    if how == "node":  # Runner(node=...), ADK 2.13's third way to give the Runner its root
        runner = Runner(node=root, app_name=APP, session_service=sessions)
    else:
        runner = Runner(app=App(name=APP, root_agent=root), session_service=sessions)
    assert runner.app.name == APP and runner.agent.name == "answer"
    message = types.Content(role="user", parts=[types.Part(text="abc")])
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]
    assert [(e.node_info.path, e.output) for e in events if e.output is not None] == [("answer@1/answer@1", "cba")]
    await sessions.close()


def test_a_runner_takes_exactly_one_of_app_agent_or_node():
    def echo(node_input: str):
        return node_input

    sessions = session_service_from_url("memory://")
    workflow = Workflow(name="wf", edges=[(START, echo)])
    with pytest.raises(InvalidArgumentError, match="exactly one of app="):
        Runner(agent=workflow, node=workflow, app_name=APP, session_service=sessions)
    with pytest.raises(InvalidArgumentError, match="exactly one of app="):
        Runner(app_name=APP, session_service=sessions)
    assert Runner(node=workflow, session_service=sessions).app_name == "wf"  # the node's name, as in ADK
    wrapped = Runner(agent=workflow, app_name=APP, session_service=sessions).app  # a bare agent gets an App
    assert (wrapped.name, wrapped.root_agent) == (APP, workflow)


async def test_parameters_are_coerced_to_their_type_hints_or_refused(setup):
    from pydantic import ValidationError

    def add_one(node_input: int) -> int:
        return node_input + 1

    def ok(n: int, ctx) -> int:
        return n

    await setup.run(Workflow(name="wf", edges=[(START, add_one)]), "41")
    assert fold_all((await setup.session()).events).nodes["wf@1/add_one@1"].output == 42

    with pytest.raises(ValidationError, match="valid integer"):  # as google-adk 2.13 raises it
        await setup.run(Workflow(name="wf", edges=[(START, ok)]), state={"n": "many"}, session_id="s2")


async def test_a_node_may_set_ctx_output_and_ctx_route_instead_of_yielding_them(setup):
    def decide(ctx):
        ctx.output = {"score": 7}
        ctx.route = "high"

    def high(node_input: dict):
        return f"high {node_input['score']}"

    def low(node_input):
        return "low"

    await setup.run(Workflow(name="wf", edges=[(START, decide, {"high": high, "low": low})]))
    runs = fold_all((await setup.session()).events).nodes
    assert list(runs) == ["wf@1/decide@1", "wf@1/high@1"]
    assert (runs["wf@1/decide@1"].output, runs["wf@1/decide@1"].route) == ({"score": 7}, "high")
    assert runs["wf@1/high@1"].output == "high 7"
