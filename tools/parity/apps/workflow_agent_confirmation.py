"""An agent node whose tool needs a person's confirmation: the workflow waits with the agent, and
the approval runs the agent again, which runs the tool and answers (seeing its node input first,
then its own turn)."""

from google.adk import Agent, Workflow
from google.adk.tools.function_tool import FunctionTool

from tools.parity.apps.rule_model import call, model, say

SHOW_NODES = True


def cancel_subscription(plan: str) -> dict:
    """Cancels a subscription plan."""
    return {"plan": plan, "cancelled": True}


def support(text, response, request):
    return call("cancel_subscription", plan="gold") if response is None else say(f"Cancelled: {response.response}")


agent = Agent(name="support", model=model(support), instruction="Cancel what the user asks.",
              tools=[FunctionTool(cancel_subscription, require_confirmation=True)])

root_agent = Workflow(name="billing", edges=[("START", agent)])

TURNS = ["cancel my gold plan", {"confirm": True}]
