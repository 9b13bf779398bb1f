"""ADK's tool-confirmation idiom: a tool that needs a person's approval before it runs."""

from google.adk.agents import LlmAgent
from google.adk.tools import FunctionTool, ToolContext

from tools.parity.apps.rule_model import call, model, say


def reimburse(amount: int, tool_context: ToolContext) -> dict:
    """Pays an employee back."""
    tool_context.state["paid"] = tool_context.state.get("paid", 0) + amount
    return {"status": "paid", "amount": amount}


def rule(text, response, request):
    if response is not None:
        return say(f"Result: {response.response}")
    return call("reimburse", amount=int(text.split()[-1]))


root_agent = LlmAgent(
    name="expenses",
    model=model(rule),
    instruction="You reimburse expenses.",
    tools=[FunctionTool(reimburse, require_confirmation=True)],
)

TURNS = ["reimburse 200", {"confirm": True}, "reimburse 5000", {"confirm": False}]
