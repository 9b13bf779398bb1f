"""Callbacks written for google-adk 2.x's unified Context: a parameter typed `Context` under any
name, passed by position; a before_agent_callback whose answer keeps the role it was given."""

from google.adk.agents import LlmAgent
from google.adk.agents.context import Context
from google.genai import types

from tools.parity.apps.rule_model import call, model, say

HEARD: list = []


def greet_once(ctx: Context):
    """Answers the first turn itself, with a content whose role it leaves unset."""
    if ctx.state.get("greeted"):
        return None
    ctx.state["greeted"] = True
    return types.Content(parts=[types.Part(text="Welcome to the shop.")])


def note_request(context: Context, request):
    HEARD.append(["before_model", [c.role for c in request.contents]])
    HEARD.append(["session_roles", [e.content.role for e in context.session.events if e.content]])
    return None


def note_tool(tool, arguments, context: Context):
    context.state["last_tool"] = tool.name
    HEARD.append(["before_tool", tool.name, dict(arguments)])
    return None


def note_result(tool, arguments, context: Context, result):
    HEARD.append(["after_tool", tool.name, result])
    return {"price": result["price"] * 2}


def quote(item: str) -> dict:
    """Prices an item."""
    return {"price": 3}


def rule(text, response, request):
    if response is not None:
        return say(f"It costs {response.response['price']}.")
    return call("quote", item=text.split()[-1])


root_agent = LlmAgent(
    name="shop",
    model=model(rule),
    instruction="You sell things.",
    tools=[quote],
    before_agent_callback=greet_once,
    before_model_callback=note_request,
    before_tool_callback=note_tool,
    after_tool_callback=note_result,
)

TURNS = ["hello", "price of tea"]
