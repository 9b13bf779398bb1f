"""Resumable runs record google-adk's checkpoints (agent_state, end_of_agent) in the log, in
ADK's shape and order, and a resumed invocation goes on from them -- on every store."""

from __future__ import annotations

from functools import partial
from typing import Any, AsyncGenerator

import pytest
from google.genai import types

from runtime import App, LlmAgent, LongRunningFunctionTool, ResumabilityConfig, Runner, ScriptedLlm, session_service_from_url
from runtime.agents.base_agent import BaseAgent, BaseAgentState
from runtime.agents.loop_agent import LoopAgent, LoopAgentState
from runtime.agents.parallel_agent import ParallelAgent
from runtime.agents.sequential_agent import SequentialAgent, SequentialAgentState
from runtime.models import LlmRequest
from tests.rt_helpers import collect

APP, USER, SESSION = "states_app", "ann", "s1"


def text(value: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=value)])


def answer(call_id: str, name: str, response: dict) -> types.Content:
    part = types.Part(function_response=types.FunctionResponse(id=call_id, name=name, response=response))
    return types.Content(role="user", parts=[part])


def make(sessions: Any, agent: BaseAgent) -> Runner:
    app = App(name=APP, root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=True))
    return Runner(app=app, session_service=sessions)


run = partial(collect, user_id=USER, session_id=SESSION)


def checkpoints(events: list) -> list[tuple[str, Any]]:
    """(author, agent_state) or (author, 'end') for each checkpoint event, in order."""
    return [
        (e.author, "end" if e.actions.end_of_agent else e.actions.agent_state)
        for e in events
        if e.actions.end_of_agent or e.actions.agent_state is not None
    ]


async def stored_events(sessions) -> list:
    return (await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)).events


def test_the_state_classes_have_google_adks_names_and_fields():
    assert LoopAgentState().model_dump() == {"current_sub_agent": "", "times_looped": 0}
    assert SequentialAgentState(current_sub_agent="a").model_dump() == {"current_sub_agent": "a"}
    assert issubclass(LoopAgentState, BaseAgentState) and issubclass(SequentialAgentState, BaseAgentState)
    with pytest.raises(ValueError):
        BaseAgentState(anything=1)  # extra fields are refused, as in google-adk


async def test_workflow_agents_record_adks_checkpoints_in_the_log(sessions):
    def after(callback_context) -> types.Content:
        return types.Content(role="model", parts=[types.Part(text="after b")])

    a = LlmAgent(name="a", model=ScriptedLlm(["from a"]))
    b = LlmAgent(name="b", model=ScriptedLlm(["from b"]), after_agent_callback=after)
    c, d = LlmAgent(name="c", model=ScriptedLlm(["from c"])), LlmAgent(name="d", model=ScriptedLlm(["from d"]))
    loop = LoopAgent(name="loop", sub_agents=[a], max_iterations=2)
    root = SequentialAgent(name="seq", sub_agents=[loop, b, ParallelAgent(name="par", sub_agents=[c])])
    a.model.cycle = True
    del d
    events = await run(make(sessions, root), text("go"))
    assert checkpoints(await stored_events(sessions)) == checkpoints(events) == [
        ("seq", {"current_sub_agent": "loop"}),
        ("loop", {"current_sub_agent": "a", "times_looped": 0}),
        ("a", "end"),
        ("loop", {"current_sub_agent": "a", "times_looped": 1}),
        ("a", "end"),
        ("loop", "end"),
        ("seq", {"current_sub_agent": "b"}),
        ("b", "end"),
        ("seq", {"current_sub_agent": "par"}),
        ("par", {}),
        ("c", "end"),
        ("par", "end"),
        ("seq", "end"),
    ]
    ended = [e for e in events if e.actions.end_of_agent]
    assert all(e.actions.agent_state is None and e.content is None for e in ended)
    # google-adk records an agent's end before its after_agent_callback answers
    b_events = [(e.text() or "end") for e in events if e.author == "b"]
    assert b_events == ["from b", "end", "after b"]


async def test_a_resumed_loop_goes_on_in_the_iteration_it_paused_in(sessions, store_url):
    """The loop paused in its second iteration; the resume (through a fresh service, as another
    process would) reads times_looped from the log and does not run the first iteration again."""
    asked: list[int] = []

    def approve(n: int) -> None:
        """Asks a person to approve draft n."""
        asked.append(n)

    def brain(request: LlmRequest) -> Any:
        drafts = sum(1 for c in request.contents for p in c.parts if p.text and p.text.startswith("draft "))
        last = request.contents[-1].parts[-1]
        if last.function_response is not None:
            return f"draft {drafts + 1} approved"
        if drafts == 1 and not asked:
            return ScriptedLlm.call("approve", n=2)
        return f"draft {drafts + 1}"

    def build() -> BaseAgent:
        writer = LlmAgent(name="writer", model=ScriptedLlm([brain], cycle=True), tools=[LongRunningFunctionTool(approve)])
        return SequentialAgent(
            name="seq", sub_agents=[LoopAgent(name="loop", sub_agents=[writer], max_iterations=3),
                                    LlmAgent(name="closer", model=ScriptedLlm(["closed"]))]
        )

    events = await run(make(sessions, build()), text("write"))
    assert [e.text() for e in events if e.text()] == ["draft 1"] and asked == [2]
    call_id = next(iter(next(e for e in events if e.long_running_tool_ids).long_running_tool_ids))
    assert not any(e.actions.end_of_agent and e.author in ("loop", "seq") for e in events)

    fresh = session_service_from_url(store_url) if store_url != "memory://" else sessions
    try:
        resumed = await run(make(fresh, build()), answer(call_id, "approve", {"ok": True}),
                            invocation_id=events[0].invocation_id)
    finally:
        if fresh is not sessions:
            await fresh.close()
    assert [e.text() for e in resumed if e.text()] == ["draft 2 approved", "draft 3", "closed"]
    assert checkpoints(resumed) == [
        ("writer", "end"),
        ("loop", {"current_sub_agent": "writer", "times_looped": 2}),
        ("writer", "end"),
        ("loop", "end"),
        ("seq", {"current_sub_agent": "closer"}),
        ("closer", "end"),
        ("seq", "end"),
    ]


class StepState(BaseAgentState):
    step: int = 0


class Stepper(BaseAgent):
    """A custom agent written the google-adk way: it records its own state class, and reads it
    back when its invocation resumes."""

    async def _run_async_impl(self, ctx) -> AsyncGenerator[Any, None]:
        state = self._load_agent_state(ctx, StepState)
        resuming = state is not None
        for index in range(state.step if state else 0, len(self.sub_agents)):
            if not resuming:  # a resumed step's state is in the log already
                ctx.set_agent_state(self.name, agent_state=StepState(step=index))
                yield self._create_agent_state_event(ctx)
            resuming = False
            async for event in self.sub_agents[index].run_async(ctx):
                yield event
            if self.sub_agents[index].name in ctx.paused_agents:
                return
        ctx.set_agent_state(self.name, end_of_agent=True)
        yield self._create_agent_state_event(ctx)


async def test_a_custom_agent_records_and_reads_its_own_state_class(sessions):
    def wait() -> None:
        """Waits for a person."""

    def build() -> BaseAgent:
        first = LlmAgent(name="first", model=ScriptedLlm([ScriptedLlm.call("wait"), "first done"]),
                         tools=[LongRunningFunctionTool(wait)])
        return Stepper(name="stepper", sub_agents=[first, LlmAgent(name="second", model=ScriptedLlm(["second done"]))])

    events = await run(make(sessions, build()), text("go"))
    assert checkpoints(events) == [("stepper", {"step": 0})]
    call_id = next(iter(next(e for e in events if e.long_running_tool_ids).long_running_tool_ids))
    agent = build()
    agent.sub_agents[0].model.turns.pop(0)  # the call was made already; only the answer is left
    resumed = await run(make(sessions, agent), answer(call_id, "wait", {"ok": True}), invocation_id=events[0].invocation_id)
    assert [e.text() for e in resumed if e.text()] == ["first done", "second done"]
    # one end_of_agent for the stepper: the one it recorded itself
    assert checkpoints(resumed) == [("first", "end"), ("stepper", {"step": 1}), ("second", "end"), ("stepper", "end")]
