"""A LoopAgent that a tool stops with exit_loop once a counter in state is high enough."""

from google.adk.agents import LlmAgent, LoopAgent
from google.adk.tools import ToolContext, exit_loop

from tools.parity.apps.rule_model import call, model, say


def bump(tool_context: ToolContext) -> dict:
    """Adds one to the counter."""
    tool_context.state["count"] = tool_context.state.get("count", 0) + 1
    return {"count": tool_context.state["count"]}


def rule(text, response, request):
    if response is None:
        return call("bump")
    if response.name == "bump" and response.response["count"] >= 3:
        return call("exit_loop")
    if response.name == "exit_loop":
        return say("Done counting.")
    return say(f"Count is {response.response['count']}.")


worker = LlmAgent(name="counter", model=model(rule), instruction="Count.", tools=[bump, exit_loop])
root_agent = LoopAgent(name="loop", sub_agents=[worker], max_iterations=5)

TURNS = ["count to three"]
