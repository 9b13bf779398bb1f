"""Each kind of agent: LlmAgent (instructions, models, output, transfer, context), Sequential,
Parallel and Loop agents, and custom BaseAgent subclasses."""

from __future__ import annotations

import asyncio
from typing import AsyncGenerator

import pytest
from google.genai import types
from pydantic import BaseModel

from domain.events import Event
from runtime import (
    BaseAgent,
    Gemini,
    InstructionVariableError,
    InvocationContext,
    LlmAgent,
    LlmResponse,
    LoopAgent,
    ParallelAgent,
    ReadonlyContext,
    ScriptedLlm,
    SequentialAgent,
    ToolContext,
)
from runtime.agents.llm_context import OTHER_AGENT_PREAMBLE, quote_untrusted
from tests.rt_helpers import content_texts, new_runner, send, stored, texts


# -- LlmAgent: instructions ----------------------------------------------------------------------


async def test_instruction_templating_from_state():
    model = ScriptedLlm(["ok"])
    agent = LlmAgent(
        name="a",
        model=model,
        instruction='Help {name} ({user:tier}). Mood: {mood?}. Literal JSON stays: {"x": 1} and {not a key}.',
    )
    runner = await new_runner(agent, state={"name": "Ada", "user:tier": "gold"})
    await send(runner, "hi")
    system = model.requests[0].config.system_instruction
    assert system.startswith('Help Ada (gold). Mood: . Literal JSON stays: {"x": 1} and {not a key}.')
    assert 'Your internal name is "a"' in system


async def test_missing_instruction_variable_is_an_error_that_names_it():
    agent = LlmAgent(name="a", model=ScriptedLlm(["ok"]), instruction="Hello {who}")
    runner = await new_runner(agent)
    with pytest.raises(InstructionVariableError, match="'who'"):
        await send(runner, "hi")


async def test_callable_instruction_is_not_templated_and_global_instruction_applies_to_all():
    def provider(ctx: ReadonlyContext) -> str:
        return f"Dynamic for {ctx.agent_name}; braces {{kept}} count={ctx.state.get('count')}"

    child_model = ScriptedLlm(["child answer"])
    child = LlmAgent(name="child", model=child_model, instruction=provider)
    root = LlmAgent(
        name="root",
        model=ScriptedLlm([ScriptedLlm.call("transfer_to_agent", agent_name="child")]),
        global_instruction="Be brief, {name}.",
        sub_agents=[child],
    )
    runner = await new_runner(root, state={"name": "Ada", "count": 3})
    await send(runner, "hi")
    system = child_model.requests[0].config.system_instruction
    assert system.startswith("Be brief, Ada.\n\nDynamic for child; braces {kept} count=3")


async def test_artifact_in_instruction():
    from runtime.artifacts import InMemoryArtifactService as service_cls
    model = ScriptedLlm(["ok"])
    agent = LlmAgent(name="a", model=model, instruction="Notes: {artifact.notes.txt} / {artifact.missing?}")
    runner = await new_runner(agent)
    await runner.artifact_service.save_artifact(
        app_name=runner.app_name, user_id="u1", session_id="s1", filename="notes.txt",
        artifact=types.Part(text="remember the milk"),
    )
    await send(runner, "hi")
    assert model.requests[0].config.system_instruction.startswith("Notes: remember the milk / ")


# -- LlmAgent: models ----------------------------------------------------------------------------


def test_model_is_inherited_from_the_nearest_llm_ancestor_and_names_resolve():
    model = ScriptedLlm(["x"])
    leaf = LlmAgent(name="leaf")
    middle = SequentialAgent(name="middle", sub_agents=[leaf])
    root = LlmAgent(name="root", model=model, sub_agents=[middle])
    assert leaf.canonical_model is model
    assert root.canonical_model is model
    named = LlmAgent(name="named", model="gemini-2.5-flash")
    assert isinstance(named.canonical_model, Gemini) and named.canonical_model.model == "gemini-2.5-flash"
    assert named.canonical_model is named.canonical_model  # resolved once


def test_generate_content_config_must_not_carry_tools_or_instructions():
    with pytest.raises(ValueError):
        LlmAgent(name="a", generate_content_config=types.GenerateContentConfig(system_instruction="x"))
    agent = LlmAgent(name="a", generate_content_config=types.GenerateContentConfig(temperature=0.1))
    assert agent.generate_content_config.temperature == 0.1


async def test_generate_content_config_is_sent_and_not_shared_between_requests():
    model = ScriptedLlm(["one", "two"])
    config = types.GenerateContentConfig(temperature=0.2)
    runner = await new_runner(LlmAgent(name="a", model=model, generate_content_config=config))
    await send(runner, "1")
    await send(runner, "2")
    assert model.requests[0].config.temperature == 0.2
    assert model.requests[0].config is not model.requests[1].config
    assert config.system_instruction is None


# -- LlmAgent: output -----------------------------------------------------------------------------


class Verdict(BaseModel):
    label: str
    score: float


async def test_output_key_stores_the_final_text():
    agent = LlmAgent(name="a", model=ScriptedLlm(["The answer is 42."]), output_key="answer")
    runner = await new_runner(agent)
    events = await send(runner, "q")
    assert events[-1].actions.state_delta == {"answer": "The answer is 42."}
    assert (await stored(runner)).state["answer"] == "The answer is 42."


async def test_output_schema_sets_json_mode_and_stores_a_dict():
    model = ScriptedLlm(['{"label": "spam", "score": 0.9}'])
    agent = LlmAgent(name="a", model=model, output_schema=Verdict, output_key="verdict")
    runner = await new_runner(agent)
    await send(runner, "classify")
    config = model.requests[0].config
    assert config.response_mime_type == "application/json" and config.response_schema is Verdict
    assert (await stored(runner)).state["verdict"] == {"label": "spam", "score": 0.9}


# -- LlmAgent: context --------------------------------------------------------------------------


async def test_include_contents_none_sends_only_the_current_turn():
    def lookup() -> str:
        return "found"

    model = ScriptedLlm(["first answer", ScriptedLlm.call("lookup"), "second answer"])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[lookup], include_contents="none"))
    await send(runner, "q1")
    await send(runner, "q2")
    assert content_texts(model.requests[1].contents) == ["user:q2"]
    assert content_texts(model.requests[2].contents) == ["user:q2", "model:call:lookup", "user:result:lookup"]


async def test_other_agents_turns_are_reframed_as_context():
    writer = LlmAgent(name="writer", model=ScriptedLlm(["A draft."]), output_key="draft")
    reviewer_model = ScriptedLlm(["Looks good."])
    reviewer = LlmAgent(name="reviewer", model=reviewer_model, instruction="Review: {draft}")
    runner = await new_runner(SequentialAgent(name="pipeline", sub_agents=[writer, reviewer]))
    events = await send(runner, "write something")
    assert texts(events) == ["A draft.", "Looks good."]
    contents = reviewer_model.requests[0].contents
    assert content_texts(contents) == [
        "user:write something", f"user:{OTHER_AGENT_PREAMBLE}", f"user:[writer] said:\n{quote_untrusted('A draft.')}"
    ]
    assert reviewer_model.requests[0].config.system_instruction.startswith("Review: A draft.")


# -- LlmAgent: transfer ---------------------------------------------------------------------------


async def test_transfer_to_a_sub_agent_and_the_next_turn_goes_to_it():
    billing_model = ScriptedLlm(["Your invoice is paid.", "Anything else on billing?"])
    billing = LlmAgent(name="billing", description="Handles invoices.", model=billing_model)
    root_model = ScriptedLlm([ScriptedLlm.call("transfer_to_agent", agent_name="billing")])
    root = LlmAgent(name="root", model=root_model, sub_agents=[billing])
    runner = await new_runner(root)

    events = await send(runner, "Is my invoice paid?")
    assert [e.author for e in events] == ["root", "root", "billing"]
    assert events[1].actions.transfer_to_agent == "billing"
    assert events[-1].text() == "Your invoice is paid."
    request = root_model.requests[0]
    assert "transfer_to_agent" in request.tools_dict
    declaration = request.config.tools[0].function_declarations[-1]
    assert declaration.parameters_json_schema["properties"]["agent_name"]["enum"] == ["billing"]
    assert "Agent name: billing" in request.config.system_instruction

    events = await send(runner, "thanks")
    assert [e.author for e in events] == ["billing"]
    # The sub-agent can transfer back to its parent.
    assert "root" in billing_model.requests[1].tools_dict["transfer_to_agent"].agent_names


async def test_transfer_to_an_unknown_agent_is_answered_with_an_error():
    root_model = ScriptedLlm([ScriptedLlm.call("transfer_to_agent", agent_name="nobody"), "Sorry."])
    root = LlmAgent(name="root", model=root_model, sub_agents=[LlmAgent(name="known", model=ScriptedLlm([]))])
    runner = await new_runner(root)
    events = await send(runner, "hi")
    response = events[1].get_function_responses()[0].response
    assert "Cannot transfer to 'nobody'" in response["error"]
    assert events[-1].text() == "Sorry."


# -- workflow agents ----------------------------------------------------------------------------


async def test_sequential_agent_runs_in_order_and_shares_state():
    def record(step: str, tool_context: ToolContext) -> str:
        tool_context.state["steps"] = [*tool_context.state.get("steps", []), step]
        return step

    first = LlmAgent(name="first", model=ScriptedLlm([ScriptedLlm.call("record", step="one"), "did one"]), tools=[record])
    second = LlmAgent(name="second", model=ScriptedLlm([ScriptedLlm.call("record", step="two"), "did two"]), tools=[record])
    runner = await new_runner(SequentialAgent(name="seq", sub_agents=[first, second]))
    events = await send(runner, "go")
    assert texts(events) == ["did one", "did two"]
    assert (await stored(runner)).state["steps"] == ["one", "two"]


async def test_parallel_agent_branches_interleave_and_do_not_see_each_other():
    gate_a, gate_b = asyncio.Event(), asyncio.Event()

    async def step_a(tool_context: ToolContext) -> str:
        gate_a.set()
        await asyncio.wait_for(gate_b.wait(), 2)
        return "a done"

    async def step_b(tool_context: ToolContext) -> str:
        gate_b.set()
        await asyncio.wait_for(gate_a.wait(), 2)
        return "b done"

    model_a = ScriptedLlm([ScriptedLlm.call("step_a"), "A finished"])
    model_b = ScriptedLlm([ScriptedLlm.call("step_b"), "B finished"])
    a = LlmAgent(name="a", model=model_a, tools=[step_a])
    b = LlmAgent(name="b", model=model_b, tools=[step_b])
    runner = await new_runner(ParallelAgent(name="par", sub_agents=[a, b]))
    events = await send(runner, "go")
    assert {e.branch for e in events} == {"par.a", "par.b"}
    assert sorted(texts(events)) == ["A finished", "B finished"]
    authors = [e.author for e in events]
    assert authors != sorted(authors)  # interleaved, not one agent after the other
    assert content_texts(model_a.requests[1].contents) == ["user:go", "model:call:step_a", "user:result:step_a"]
    assert content_texts(model_b.requests[1].contents) == ["user:go", "model:call:step_b", "user:result:step_b"]
    session = await stored(runner)
    assert len(session.events) == 1 + 6


async def test_parallel_sub_agents_resume_only_after_their_event_is_committed():
    observed = []

    class Checker(BaseAgent):
        async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
            for i in range(3):
                event = Event(
                    invocation_id=ctx.invocation_id, author=self.name, branch=ctx.branch,
                    content=types.Content(role="model", parts=[types.Part(text=f"{self.name}{i}")]),
                )
                yield event
                session = await ctx.session_service.get_session(
                    app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id
                )
                observed.append(event.id in {e.id for e in session.events})
                await asyncio.sleep(0)

    runner = await new_runner(ParallelAgent(name="par", sub_agents=[Checker(name="x"), Checker(name="y")]))
    events = await send(runner, "go")
    assert len(events) == 6 and observed == [True] * 6


async def test_parallel_agent_failure_stops_the_others():
    async def fail() -> str:
        raise ValueError("branch failed")

    async def forever() -> str:
        await asyncio.sleep(30)
        return "never"

    a = LlmAgent(name="a", model=ScriptedLlm([ScriptedLlm.call("fail")]), tools=[fail])
    b = LlmAgent(name="b", model=ScriptedLlm([ScriptedLlm.call("forever")]), tools=[forever])
    runner = await new_runner(ParallelAgent(name="par", sub_agents=[a, b]))
    with pytest.raises(ValueError, match="branch failed"):
        await asyncio.wait_for(send(runner, "go"), 5)


async def test_loop_agent_runs_max_iterations():
    model = ScriptedLlm(["again"], cycle=True)
    runner = await new_runner(LoopAgent(name="loop", max_iterations=3, sub_agents=[LlmAgent(name="worker", model=model)]))
    events = await send(runner, "go")
    assert texts(events) == ["again"] * 3


async def test_loop_agent_stops_when_a_sub_agent_escalates():
    def check(tool_context: ToolContext) -> str:
        tool_context.state["rounds"] = tool_context.state.get("rounds", 0) + 1
        if tool_context.state["rounds"] >= 2:
            tool_context.actions.escalate = True
            return "good enough"
        return "keep going"

    checker = LlmAgent(name="checker", model=ScriptedLlm([ScriptedLlm.call("check"), "checked"], cycle=True), tools=[check])
    after = LlmAgent(name="after", model=ScriptedLlm(["after"], cycle=True))
    runner = await new_runner(LoopAgent(name="loop", max_iterations=10, sub_agents=[checker, after]))
    events = await send(runner, "go")
    assert (await stored(runner)).state["rounds"] == 2
    # The escalating agent finishes its turn, then the loop stops: "after" does not run again.
    assert texts(events) == ["checked", "after", "checked"]
    assert [e.author for e in events if e.actions.escalate] == ["checker"]


# -- custom agents and the tree -------------------------------------------------------------------


async def test_custom_agent_runs_sub_agents_and_yields_its_own_events():
    class Router(BaseAgent):
        async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
            target = self.sub_agents[0] if "tech" in ctx.user_content.parts[0].text else self.sub_agents[1]
            yield Event(
                invocation_id=ctx.invocation_id, author=self.name,
                content=types.Content(role="model", parts=[types.Part(text=f"routing to {target.name}")]),
            )
            async for event in target.run_async(ctx):
                yield event

    tech = LlmAgent(name="tech", model=ScriptedLlm(["reboot it"]))
    sales = LlmAgent(name="sales", model=ScriptedLlm(["buy more"]))
    runner = await new_runner(Router(name="router", sub_agents=[tech, sales]))
    assert texts(await send(runner, "tech question")) == ["routing to tech", "reboot it"]


def test_agent_tree_rules():
    child = LlmAgent(name="child")
    root = LlmAgent(name="root", sub_agents=[child])
    assert child.parent_agent is root and root.find_agent("child") is child and child.root_agent is root
    with pytest.raises(ValueError, match="Agent `child` already has a parent agent, current parent: `root`, trying to add: `other`"):
        LlmAgent(name="other", sub_agents=[child])
    with pytest.raises(ValueError):
        LlmAgent(name="not valid")
    with pytest.raises(ValueError):
        LlmAgent(name="user")



def test_duplicate_agent_names_warn_as_google_adk_does_and_find_agent_takes_the_first(caplog):
    first, second = LlmAgent(name="x"), LlmAgent(name="x")
    with caplog.at_level("WARNING"):
        root = SequentialAgent(name="s", sub_agents=[first, second])
    assert "duplicate agent names: `x`" in caplog.text
    assert root.find_agent("x") is first
    caplog.clear()
    with caplog.at_level("WARNING"):
        LlmAgent(name="top", sub_agents=[SequentialAgent(name="mid", sub_agents=[LlmAgent(name="top")])])
    assert "`top`" in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING"):
        SequentialAgent(name="fine", sub_agents=[LlmAgent(name="a"), LlmAgent(name="b")])
    assert "duplicate" not in caplog.text


async def test_before_model_response_event_carries_callback_state():
    def canned(callback_context, llm_request):
        callback_context.state["cached"] = True
        return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="from cache")]))

    model = ScriptedLlm([])
    runner = await new_runner(LlmAgent(name="a", model=model, before_model_callback=canned))
    events = await send(runner, "hi")
    assert texts(events) == ["from cache"] and model.requests == []
    assert events[0].actions.state_delta == {"cached": True}
