"""app:, user:, temp: and session state written by a tool and read back by an instruction."""

from google.adk.agents import LlmAgent
from google.adk.tools import ToolContext

from tools.parity.apps.rule_model import call, model, say


def visit(tool_context: ToolContext) -> dict:
    """Records a visit."""
    state = tool_context.state
    state["app:visits"] = state.get("app:visits", 0) + 1
    state["user:visits"] = state.get("user:visits", 0) + 1
    state["temp:scratch"] = "gone after this turn"
    state["session_visits"] = state.get("session_visits", 0) + 1
    return {"app": state["app:visits"], "user": state["user:visits"], "temp": state.get("temp:scratch")}


def rule(text, response, request):
    if response is not None:
        return say(f"Visits: app {response.response['app']}, user {response.response['user']}.")
    return call("visit")


root_agent = LlmAgent(
    name="greeter",
    model=model(rule),
    instruction="Greet. Visits so far: {user:visits?}, scratch: {temp:scratch?}.",
    tools=[visit],
)

TURNS = ["hi", "hi again"]
