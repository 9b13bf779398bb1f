"""Where plain (sync) tools and callbacks run: on the event loop, as google-adk 2.13 runs them when
the RunConfig asks for no tool thread pool."""

import asyncio

from google.adk.agents import LlmAgent
from google.adk.tools import ToolContext

from tools.parity.apps.rule_model import call, model, say


def _on_the_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def where(tool_context: ToolContext) -> dict:
    """Says whether this tool ran on the event loop."""
    return {"on_the_loop": _on_the_loop(), "callback_on_the_loop": tool_context.state.get("callback_on_the_loop")}


def before_tool(tool, args, tool_context):
    tool_context.state["callback_on_the_loop"] = _on_the_loop()


def rule(text, response, request):
    if response is not None:
        return say(f"tool on the loop: {response.response['on_the_loop']}")
    return call("where")


root_agent = LlmAgent(name="placer", model=model(rule), tools=[where], before_tool_callback=before_tool)

TURNS = ["where do you run?"]
