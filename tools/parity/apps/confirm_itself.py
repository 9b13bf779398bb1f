"""A tool that asks for confirmation itself (tool_context.request_confirmation) in an app that is
not resumable, beside a sibling call that needs no one: ADK's order of the request, the results and
the model's next answer, then the approval and the rejection."""

from google.adk.agents import LlmAgent
from google.adk.tools import ToolContext
from google.genai import types

from tools.parity.apps.rule_model import model, say


def transfer_money(amount: int, tool_context: ToolContext) -> dict:
    """Moves money; large amounts need the account holder's approval."""
    confirmation = tool_context.tool_confirmation
    if amount > 100 and confirmation is None:
        tool_context.request_confirmation(hint=f"Approve moving {amount}?", payload={"limit": 100})
        tool_context.state["asked"] = tool_context.state.get("asked", 0) + 1
        return {"status": "waiting for approval"}
    if confirmation is not None and not confirmation.confirmed:
        return {"status": "cancelled"}
    tool_context.state["moved"] = tool_context.state.get("moved", 0) + amount
    return {"status": "moved", "amount": amount}


def balance() -> dict:
    """The balance."""
    return {"balance": 1000}


def rule(text, response, request):
    last = request.contents[-1]
    results = [p.function_response for p in last.parts or [] if p.function_response]
    if results:
        return say("; ".join(f"{r.name}: {r.response}" for r in results))
    amount = next(int(w) for w in text.split() if w.isdigit())
    calls = [types.Part(function_call=types.FunctionCall(name="transfer_money", args={"amount": amount}))]
    if "and balance" in text:
        calls.append(types.Part(function_call=types.FunctionCall(name="balance", args={})))
    return types.Content(role="model", parts=calls)


root_agent = LlmAgent(name="bank", model=model(rule),
                      instruction="Move money.", tools=[transfer_money, balance])

TURNS = ["move 50", "move 500", {"confirm": True}, "move 700 and balance", {"confirm": True}]
# (A rejection of a tool that asked itself is a deliberate difference: docs/hitl.md.)
