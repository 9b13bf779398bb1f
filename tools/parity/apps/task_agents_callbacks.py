"""A chat agent with tool callbacks (its own and a plugin's) delegates to a task-mode sub-agent and
also calls a plain tool: as google-adk 2.13, the callbacks see the plain tool's call, while the
delegated task's result is recorded directly, past them (the callbacks never hear of the task)."""

from google.adk import Agent
from google.adk.apps import App
from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types

from tools.parity.apps.rule_model import model, say

SHOW_NODES = True
HEARD: list = []


def booker_rule(text, response, request):
    if response is not None:
        return say("Booked.")
    said = [p.text for c in request.contents if c.role == "user" for p in c.parts or [] if p.text]
    if not any(t.isdigit() for t in said):
        return say("How many nights?")
    finish = types.FunctionCall(id="call-9", name="finish_task", args={"result": "Oslo, 3 nights"})
    return types.Content(role="model", parts=[types.Part(function_call=finish)])


booker = Agent(name="booker", mode="task", model=model(booker_rule), description="Books a hotel.",
               instruction="Book a hotel; ask what you need.")


def weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city, "sky": "clear"}


def lead_rule(text, response, request):
    if response is None:
        call = types.FunctionCall(id="call-1", name="weather", args={"city": "Oslo"})
        return types.Content(role="model", parts=[types.Part(function_call=call)])
    if response.name == "weather":
        call = types.FunctionCall(id="call-2", name="booker", args={"request": "a hotel in Oslo"})
        return types.Content(role="model", parts=[types.Part(function_call=call)])
    return say(f"All set: {response.response}")


def before_tool(tool, args, tool_context):
    HEARD.append(f"agent before {tool.name}")


def after_tool(tool, args, tool_context, tool_response):
    HEARD.append(f"agent after {tool.name}")


class Listener(BasePlugin):
    async def before_tool_callback(self, *, tool, tool_args, tool_context):
        HEARD.append(f"plugin before {tool.name}")

    async def after_tool_callback(self, *, tool, tool_args, tool_context, result):
        HEARD.append(f"plugin after {tool.name}")


lead = Agent(name="lead", model=model(lead_rule), instruction="Help with travel.", sub_agents=[booker],
             tools=[weather], before_tool_callback=before_tool, after_tool_callback=after_tool)

app = App(name="parity", root_agent=lead, plugins=[Listener(name="listener")])

TURNS = ["book me a hotel in Oslo", "3"]
