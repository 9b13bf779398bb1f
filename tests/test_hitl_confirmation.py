"""Tool confirmations: no tool runs unapproved, whatever its kind; approve, reject, policies."""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types

from domain.errors import InvalidAnswerError
from runtime import AgentTool, BaseTool, FunctionTool, LlmAgent, ScriptedLlm, ToolConfirmation, ToolContext
from runtime.agents.context import Context
from tests.hitl_helpers import APP, SESSION, USER, brain, confirm, make_runner, request_of, run, text, texts


class Paid:
    def __init__(self) -> None:
        self.amounts: list[int] = []

    def tool(self, **kwargs: Any) -> FunctionTool:
        def reimburse(amount: int) -> dict:
            """Pays an amount back to the employee."""
            self.amounts.append(amount)
            return {"status": "paid", "amount": amount}

        return FunctionTool(reimburse, **kwargs)


@pytest.mark.parametrize("resumable", [False, True])
@pytest.mark.parametrize("web_client", [False, True])
async def test_an_approved_call_runs_once_after_the_approval(sessions, resumable, web_client):
    paid = Paid()
    runner = make_runner(sessions, [paid.tool(require_confirmation=True)], resumable=resumable)
    events = await run(runner, text("pay me 50"))
    assert paid.amounts == []  # the safety bug: it used to pay at once
    request = request_of(events)
    asking = next(e for e in events if e.get_function_calls() and e.get_function_calls()[0].name == "adk_request_confirmation")
    assert asking.long_running_tool_ids == {request.id}
    assert request.args["originalFunctionCall"]["name"] == "reimburse"
    assert request.args["originalFunctionCall"]["args"] == {"amount": 50}
    assert "approve or reject" in request.args["toolConfirmation"]["hint"]
    assert request.args["toolConfirmation"]["confirmed"] is False
    placeholder = next(r for e in events for r in e.get_function_responses())
    assert placeholder.response == {"error": "This tool call requires confirmation, please approve or reject."}

    # a new runner (as another process would) gets the answer
    runner = make_runner(sessions, [paid.tool(require_confirmation=True)], resumable=resumable)
    answered = await run(runner, confirm(request.id, True, web_client=web_client))
    assert paid.amounts == [50]
    assert texts(answered) == ['result: {"amount": 50, "status": "paid"}']
    if resumable:
        assert {e.invocation_id for e in answered} == {events[0].invocation_id}
    # the model never saw the internal request, and saw the real result in place of the placeholder
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    # answering again is refused and writes nothing
    count = len(session.events)
    with pytest.raises(InvalidAnswerError):
        await run(runner, confirm(request.id, True))
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert len(session.events) == count and paid.amounts == [50]


async def test_the_model_sees_the_result_not_the_request(sessions):
    paid = Paid()
    model = brain("reimburse", amount=50)
    runner = make_runner(sessions, [paid.tool(require_confirmation=True)], model=model)
    request = request_of(await run(runner, text("pay me 50")))
    await run(runner, confirm(request.id, True))
    contents = model.requests[-1].contents
    names = [p.function_call.name if p.function_call else p.function_response.name
             for c in contents for p in c.parts if p.function_call or p.function_response]
    assert names == ["reimburse", "reimburse"]
    assert contents[-1].parts[0].function_response.response == {"status": "paid", "amount": 50}


@pytest.mark.parametrize("resumable", [False, True])
async def test_a_rejected_call_never_runs_and_the_model_gets_the_rejection(sessions, resumable):
    paid = Paid()
    runner = make_runner(sessions, [paid.tool(require_confirmation=True)], resumable=resumable)
    request = request_of(await run(runner, text("pay me 50")))
    answered = await run(runner, confirm(request.id, False))
    assert paid.amounts == []
    assert texts(answered) == ['result: {"error": "This tool call is rejected."}']


async def test_a_callable_policy_decides_per_call(sessions):
    paid = Paid()
    seen: list[Any] = []

    async def over_limit(amount: int, ctx: ToolContext) -> bool:
        seen.append(ctx.function_call_id)
        return amount > 100

    runner = make_runner(sessions, [paid.tool(require_confirmation=over_limit)], args={"amount": 50})
    assert texts(await run(runner, text("pay me 50"))) == ['result: {"amount": 50, "status": "paid"}']
    assert paid.amounts == [50] and seen and seen[0]

    runner = make_runner(sessions, [paid.tool(require_confirmation=over_limit)], args={"amount": 500})
    request = request_of(await run(runner, text("pay me 500")))
    assert paid.amounts == [50]
    await run(runner, confirm(request.id, True))
    assert paid.amounts == [50, 500]


class Wire(BaseTool):
    """A user's own BaseTool that sends money: gated by check_require_confirmation."""

    def __init__(self) -> None:
        super().__init__(name="reimburse", description="Sends money.")
        self.sent: list[Any] = []

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name, description=self.description,
            parameters=types.Schema(type="OBJECT", properties={"amount": types.Schema(type="INTEGER")}),
        )

    async def check_require_confirmation(self, args: dict, tool_context: ToolContext) -> bool:
        return True

    async def run_async(self, *, args: dict, tool_context: ToolContext) -> Any:
        self.sent.append(args)
        return {"sent": True}


async def test_a_custom_base_tool_that_is_rejected_does_not_run(sessions):
    wire = Wire()
    runner = make_runner(sessions, [wire])
    request = request_of(await run(runner, text("wire 50")))
    assert wire.sent == []
    answered = await run(runner, confirm(request.id, False))
    assert wire.sent == [] and texts(answered) == ['result: {"error": "This tool call is rejected."}']


async def test_a_tool_that_asks_itself_is_held_to_the_answer(sessions):
    ran: list[Any] = []

    def reimburse(amount: int, ctx: Context) -> dict:
        """Pays, above 10 only with a manager's approval."""
        if ctx.tool_confirmation is None:
            ctx.request_confirmation(hint="A manager must approve.", payload={"approved_amount": 0})
            return {"status": "waiting for a manager"}
        ran.append(ctx.tool_confirmation.payload)
        return {"status": "paid", "amount": ctx.tool_confirmation.payload["approved_amount"]}

    runner = make_runner(sessions, [reimburse])
    events = await run(runner, text("pay me 50"))
    request = request_of(events)
    assert request.args["toolConfirmation"] == {"hint": "A manager must approve.", "confirmed": False,
                                                "payload": {"approved_amount": 0}}
    answered = await run(runner, confirm(request.id, True, {"approved_amount": 40}))
    assert ran == [{"approved_amount": 40}]
    assert texts(answered) == ['result: {"amount": 40, "status": "paid"}']

    # rejected: the framework answers, the tool does not run again
    runner = make_runner(sessions, [reimburse])
    request = request_of(await run(runner, text("pay me 70")))
    answered = await run(runner, confirm(request.id, False))
    assert ran == [{"approved_amount": 40}]
    assert texts(answered) == ['result: {"error": "This tool call is rejected."}']


async def test_an_agent_tool_is_gated(sessions):
    inner_model = ScriptedLlm(["inner did it"], cycle=True)
    inner = LlmAgent(name="payer", model=inner_model, description="Pays.")

    class GatedAgentTool(AgentTool):
        async def check_require_confirmation(self, args: dict, tool_context: ToolContext) -> bool:
            return True

    runner = make_runner(sessions, [GatedAgentTool(agent=inner)], tool="payer", args={"request": "pay 50"})
    request = request_of(await run(runner, text("pay")))
    assert inner_model.turns_played == 0
    await run(runner, confirm(request.id, False))
    assert inner_model.turns_played == 0
    runner = make_runner(sessions, [GatedAgentTool(agent=inner)], tool="payer", args={"request": "pay 50"})
    request = request_of(await run(runner, text("pay again")))
    answered = await run(runner, confirm(request.id, True))
    assert inner_model.turns_played == 1 and texts(answered)[-1] == 'result: {"result": "inner did it"}'


@pytest.mark.parametrize(
    "bad",
    [{"confirmed": "maybe"}, {"confirmed": True, "extra": 1}, {"response": "not json"}],
)
async def test_bad_answers_are_refused_and_nothing_is_written(sessions, bad):
    from tests.hitl_helpers import reply

    paid = Paid()
    runner = make_runner(sessions, [paid.tool(require_confirmation=True)])
    request = request_of(await run(runner, text("pay me 50")))
    before = len((await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)).events)
    with pytest.raises(InvalidAnswerError):
        await run(runner, reply(request.id, "adk_request_confirmation", bad))
    with pytest.raises(InvalidAnswerError, match="no open request"):
        await run(runner, confirm("adk-unknown", True))
    after = len((await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)).events)
    assert after == before and paid.amounts == []


def test_tool_confirmation_wire_shape():
    confirmation = ToolConfirmation.from_response_dict({"response": '{"confirmed": true, "payload": {"a": 1}}'})
    assert confirmation == ToolConfirmation(confirmed=True, payload={"a": 1})
    assert confirmation.model_dump(by_alias=True) == {"hint": "", "confirmed": True, "payload": {"a": 1}}


async def test_context_is_injected_by_annotation_whatever_its_name(sessions):
    got: list[Any] = []

    def lookup(q: str, c: ToolContext) -> str:
        """Looks q up."""
        got.append((q, c.function_call_id, type(c).__name__))
        return "found"

    tool = FunctionTool(lookup)
    assert list(tool._get_declaration().parameters_json_schema["properties"]) == ["q"]
    runner = make_runner(sessions, [tool], tool="lookup", args={"q": "tea"})
    await run(runner, text("look"))
    assert got and got[0][0] == "tea" and got[0][1] and got[0][2] == "Context"


async def test_a_toolset_tool_is_gated(sessions):
    from runtime import BaseToolset

    paid = Paid()

    class Payments(BaseToolset):
        async def get_tools(self, readonly_context=None):
            return [paid.tool(require_confirmation=True)]

    runner = make_runner(sessions, [Payments()])
    request = request_of(await run(runner, text("pay me 50")))
    answered = await run(runner, confirm(request.id, False))
    assert paid.amounts == [] and texts(answered) == ['result: {"error": "This tool call is rejected."}']
