"""A long-running tool whose result the client sends later."""

from google.adk.agents import LlmAgent
from google.adk.tools import LongRunningFunctionTool

from tools.parity.apps.rule_model import call, model, say


def ask_manager(purpose: str) -> dict:
    """Asks a manager to approve a purchase."""
    return {"status": "pending", "purpose": purpose}


def rule(text, response, request):
    if response is not None:
        return say(f"Manager says: {response.response.get('status')}")
    return call("ask_manager", purpose=text)


root_agent = LlmAgent(
    name="purchaser",
    model=model(rule),
    instruction="Buy things after approval.",
    tools=[LongRunningFunctionTool(func=ask_manager)],
)

TURNS = ["a new laptop", {"respond": {"status": "approved"}}]
