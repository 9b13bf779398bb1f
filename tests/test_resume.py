"""Pause and resume (ResumabilityConfig(is_resumable=True)) on every store."""

from __future__ import annotations

import json
from functools import partial
from typing import Any, Optional

import pytest
from google.genai import types

from domain import InvalidArgumentError, InvocationNotFoundError
from runtime import (
    App,
    LlmAgent,
    LongRunningFunctionTool,
    ResumabilityConfig,
    Runner,
    ScriptedLlm,
    SequentialAgent,
    ToolContext,
    session_service_from_url,
)
from runtime.models import LlmRequest
# `sessions`, a service on each store with this session made, is tests/hitl_helpers.py's fixture.
from tests.hitl_helpers import APP, SESSION, USER
from tests.rt_helpers import collect
from tests.rt_helpers import user_msg as text

RESUMABLE = ResumabilityConfig(is_resumable=True)


class Counters:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def tools(self, *, pending: Optional[dict] = None) -> list[Any]:
        calls = self.calls

        def lookup(item: str) -> dict[str, Any]:
            """Looks an item up."""
            calls.append(f"lookup:{item}")
            return {"price": 3}

        def ask_approval(item: str, tool_context: ToolContext) -> Optional[dict[str, Any]]:
            """Asks a person to approve buying the item."""
            calls.append(f"ask_approval:{item}")
            tool_context.state["asked"] = item
            return pending

        return [lookup, LongRunningFunctionTool(ask_approval)]


def shop_brain(request: LlmRequest) -> Any:
    """'buy X': looks X up, then asks for approval; answers from the approval."""
    last = request.contents[-1].parts[-1]
    response = last.function_response
    if response is None:
        asked = [p.text for c in request.contents for p in c.parts if p.text and p.text.startswith("buy ")]
        return ScriptedLlm.call("lookup", item=asked[-1].removeprefix("buy "))
    if response.name == "lookup":
        item = next(
            p.function_call.args["item"] for c in request.contents for p in c.parts if p.function_call
            and p.function_call.name == "lookup"
        )
        return ScriptedLlm.call("ask_approval", item=item)
    if response.name == "ask_approval":
        return f"approval: {json.dumps(response.response, sort_keys=True)}"
    return "?"


def answer(call_id: str, name: str, response: dict) -> types.Content:
    return types.Content(
        role="user", parts=[types.Part(function_response=types.FunctionResponse(id=call_id, name=name, response=response))]
    )


run = partial(collect, user_id=USER, session_id=SESSION)


def make(sessions: Any, agent: Any, *, resumable: bool = True) -> Runner:
    app = App(name=APP, root_agent=agent, resumability_config=RESUMABLE if resumable else None)
    return Runner(app=app, session_service=sessions)


async def stored(sessions):
    return await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)


@pytest.mark.parametrize("pending", [None, {"status": "waiting for a person"}])
async def test_long_running_call_pauses_and_the_response_resumes_the_same_invocation(sessions, pending):
    counters = Counters()
    model = ScriptedLlm([shop_brain], cycle=True)
    runner = make(sessions, LlmAgent(name="shop", model=model, tools=counters.tools(pending=pending)))
    events = await run(runner, text("buy tea"))
    invocation = events[0].invocation_id
    call = next(e for e in events if e.long_running_tool_ids)
    call_id = next(iter(call.long_running_tool_ids))
    assert call.get_function_calls()[0].name == "ask_approval"
    # paused: the tool ran once, the model was not asked again, nothing says the agent finished
    assert counters.calls == ["lookup:tea", "ask_approval:tea"] and model.turns_played == 2
    session = await stored(sessions)
    assert session.events[-1].id == events[-1].id
    assert not any(e.actions.end_of_agent for e in session.events)
    assert session.state["asked"] == "tea"
    stored_call = next(e for e in session.events if e.id == call.id)
    assert stored_call.long_running_tool_ids == {call_id}

    # the app answers later, through a fresh runner (as another process would)
    runner = make(sessions, LlmAgent(name="shop", model=model, tools=counters.tools(pending=pending)))
    resumed = await run(runner, answer(call_id, "ask_approval", {"approved": True}), invocation_id=invocation)
    assert {e.invocation_id for e in resumed} == {invocation}
    assert [e.text() for e in resumed if e.text()] == ['approval: {"approved": true}']
    assert resumed[-1].actions.end_of_agent and resumed[-1].author == "shop"
    # no tool ran again; one model call; the user's first message is stored once
    assert counters.calls == ["lookup:tea", "ask_approval:tea"] and model.turns_played == 3
    session = await stored(sessions)
    assert [e.text() for e in session.events if e.author == "user" and e.text()] == ["buy tea"]
    assert {e.invocation_id for e in session.events} == {invocation}
    # the model saw the approval as the result of its call
    last_request = model.requests[-1].contents
    assert last_request[-1].parts[0].function_response.response == {"approved": True}
    assert last_request[-2].parts[0].function_call.id == call_id

    # a finished invocation takes no new message
    with pytest.raises(InvalidArgumentError, match="has finished"):
        await run(runner, answer(call_id, "ask_approval", {"approved": False}), invocation_id=invocation)
    # but, as google-adk 2.13, an LLM agent asked to resume it runs it again, in it
    again = await run(runner, invocation_id=invocation)
    assert again and {e.invocation_id for e in again} == {invocation} and model.turns_played > 3


async def test_a_function_response_resumes_its_invocation_without_the_id(sessions):
    counters = Counters()
    model = ScriptedLlm([shop_brain], cycle=True)
    runner = make(sessions, LlmAgent(name="shop", model=model, tools=counters.tools()))
    events = await run(runner, text("buy jam"))
    call_id = next(iter(next(e for e in events if e.long_running_tool_ids).long_running_tool_ids))
    resumed = await run(runner, answer(call_id, "ask_approval", {"approved": False}))
    assert {e.invocation_id for e in resumed} == {events[0].invocation_id}
    assert resumed[-2].text() == 'approval: {"approved": false}'
    # the call is answered: the same response again is a new invocation, not a resume
    again = await run(runner, answer(call_id, "ask_approval", {"approved": True}))
    assert events[0].invocation_id not in {e.invocation_id for e in again}


async def test_parallel_results_are_committed_one_by_one_and_the_pause_waits_for_them(sessions):
    calls: list[str] = []

    async def slow(x: int) -> int:
        """Slow."""
        calls.append(f"slow:{x}")
        return x

    def approve(what: str) -> None:
        """Needs a person."""
        calls.append("approve")
        return None

    def brain(request: LlmRequest) -> Any:
        last = request.contents[-1].parts[-1]
        if last.function_response is None:
            return ScriptedLlm.calls(("slow", {"x": 1}), ("approve", {"what": "it"}), ("slow", {"x": 2}))
        return "finished"

    model = ScriptedLlm([brain], cycle=True)
    runner = make(sessions, LlmAgent(name="p", model=model, tools=[slow, LongRunningFunctionTool(approve)]))
    events = await run(runner, text("go"))
    results = [e for e in events if e.get_function_responses()]
    assert len(results) == 2 and all(len(e.get_function_responses()) == 1 for e in results)
    assert sorted(calls) == ["approve", "slow:1", "slow:2"]
    call_id = next(iter(events[0].long_running_tool_ids))
    resumed = await run(runner, answer(call_id, "approve", {"ok": True}), invocation_id=events[0].invocation_id)
    assert resumed[-2].text() == "finished" and sorted(calls) == ["approve", "slow:1", "slow:2"]
    # the model got every result with its call
    contents = model.requests[-1].contents
    assert {p.function_response.name for p in contents[-1].parts} == {"slow", "approve"}
    assert len(contents[-1].parts) == 3


async def test_a_sequence_pauses_in_one_step_and_goes_on_from_it(sessions):
    counters = Counters()
    befores: list[str] = []

    def before(callback_context) -> None:
        befores.append(callback_context.agent_name)

    shopper = LlmAgent(
        name="shopper",
        model=ScriptedLlm([shop_brain], cycle=True),
        tools=counters.tools(),
        before_agent_callback=before,
    )
    writer = LlmAgent(name="writer", model=ScriptedLlm(["receipt written"]), before_agent_callback=before)
    flow = SequentialAgent(name="flow", sub_agents=[shopper, writer], before_agent_callback=before)
    runner = make(sessions, flow)
    events = await run(runner, text("buy figs"))
    assert befores == ["flow", "shopper"] and writer.model.turns_played == 0
    call_id = next(iter(next(e for e in events if e.long_running_tool_ids).long_running_tool_ids))
    resumed = await run(runner, answer(call_id, "ask_approval", {"approved": True}), invocation_id=events[0].invocation_id)
    assert befores == ["flow", "shopper", "writer"]  # agents that had started are not started again
    assert [e.text() for e in resumed if e.text()] == ['approval: {"approved": true}', "receipt written"]
    assert [e.author for e in resumed if e.actions.end_of_agent] == ["shopper", "writer", "flow"]
    assert counters.calls == ["lookup:figs", "ask_approval:figs"]
    # resuming again finds it finished
    assert await run(runner, invocation_id=events[0].invocation_id) == []


async def test_a_transfer_target_pauses_and_resumes(sessions):
    counters = Counters()
    clerk = LlmAgent(name="clerk", model=ScriptedLlm([shop_brain], cycle=True), tools=counters.tools())
    desk = LlmAgent(
        name="desk",
        model=ScriptedLlm([ScriptedLlm.call("transfer_to_agent", agent_name="clerk"), "bye from desk"]),
        sub_agents=[clerk],
    )
    runner = make(sessions, desk)
    events = await run(runner, text("buy rice"))
    call_id = next(iter(next(e for e in events if e.long_running_tool_ids).long_running_tool_ids))
    resumed = await run(runner, answer(call_id, "ask_approval", {"approved": True}), invocation_id=events[0].invocation_id)
    assert [e.text() for e in resumed if e.text()] == ['approval: {"approved": true}']
    assert [e.author for e in resumed if e.actions.end_of_agent] == ["clerk", "desk"]
    assert desk.model.turns_played == 1 and counters.calls == ["lookup:rice", "ask_approval:rice"]


async def test_resume_refusals(sessions):
    model = ScriptedLlm(["hi"], cycle=True)
    flow = lambda: SequentialAgent(name="flow", sub_agents=[LlmAgent(name="a", model=model)])  # noqa: E731
    plain = make(sessions, flow(), resumable=False)
    before = (await stored(sessions)).version
    with pytest.raises(ValueError, match="requires either a new_message or an invocation_id"):
        await run(plain)
    with pytest.raises(ValueError, match="resumable app"):
        await run(plain, invocation_id="e-1")
    events = await run(plain, text("hello"))
    with pytest.raises(InvalidArgumentError, match="already used"):
        await run(plain, text("again"), invocation_id=events[0].invocation_id)
    resumable = make(sessions, flow())
    before = (await stored(sessions)).version
    with pytest.raises(InvocationNotFoundError) as refused:
        await run(resumable, invocation_id="e-unknown")
    assert isinstance(refused.value, ValueError)  # as google-adk's InvocationNotFoundError is
    assert (await stored(sessions)).version == before
    # a new message may name a new invocation id
    assert {e.invocation_id for e in await run(resumable, text("x"), invocation_id="e-mine")} == {"e-mine"}


@pytest.mark.parametrize("resumable", [False, True])
async def test_a_root_llm_agent_without_a_message_continues_the_conversation(sessions, resumable):
    """google-adk 2.13 runs a root LlmAgent on the conversation so far when run_async gets no
    new_message: no user event, under the given invocation id or a new one."""
    seen: list[list[str]] = []

    def brain(request: LlmRequest) -> str:
        seen.append([p.text for c in request.contents for p in c.parts if p.text])
        return f"answer {len(seen)}"

    runner = make(sessions, LlmAgent(name="a", model=ScriptedLlm([brain], cycle=True)), resumable=resumable)
    first = await run(runner, text("hello"))
    more = await run(runner, state_delta={"nudged": True})
    assert [e.text() for e in more if e.text()] == ["answer 2"]
    assert seen[-1] == ["hello", "answer 1"]  # the model saw the conversation, and no new user turn
    assert {e.invocation_id for e in more} != {first[0].invocation_id}
    session = await stored(sessions)
    nudge = next(e for e in session.events if e.actions.state_delta.get("nudged"))
    assert nudge.author == "user" and nudge.content is None and session.state["nudged"] is True
    named = await run(runner, invocation_id="e-named")
    assert {e.invocation_id for e in named} == {"e-named"} and [e.text() for e in named if e.text()] == ["answer 3"]


async def test_resume_after_rewind_and_reload(sessions, store_url):
    """A paused invocation that is rewound cannot be resumed; the one before it still can be
    rewound to, and a reloaded runner resumes a paused one."""
    counters = Counters()
    model = ScriptedLlm([shop_brain], cycle=True)
    runner = make(sessions, LlmAgent(name="shop", model=model, tools=counters.tools()))
    events = await run(runner, text("buy salt"))
    invocation = events[0].invocation_id
    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=invocation)
    with pytest.raises(InvocationNotFoundError):
        await run(runner, invocation_id=invocation)
    events = await run(runner, text("buy oil"))
    if store_url != "memory://":
        await sessions.close()
        sessions = session_service_from_url(store_url)
    runner = make(sessions, LlmAgent(name="shop", model=model, tools=counters.tools()))
    call_id = next(iter(next(e for e in events if e.long_running_tool_ids).long_running_tool_ids))
    resumed = await run(runner, answer(call_id, "ask_approval", {"approved": True}), invocation_id=events[0].invocation_id)
    assert resumed[-2].text() == 'approval: {"approved": true}'
    assert counters.calls == ["lookup:salt", "ask_approval:salt", "lookup:oil", "ask_approval:oil"]
