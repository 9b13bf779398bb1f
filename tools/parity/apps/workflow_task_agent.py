"""A task-mode agent (`mode="task"`) as a workflow node: it talks with the user over several turns,
the workflow waiting at it between them, until the model calls `finish_task` with the agent's
output_schema; that call's arguments are the node's output and the next node runs on them."""

from google.adk import Agent, Event, Workflow
from google.genai import types
from pydantic import BaseModel

from tools.parity.apps.rule_model import model, say

SHOW_NODES = True


class Caller(BaseModel):
    name: str
    phone: str


def intake_rule(text, response, request):
    if response is not None:
        return say("Thanks.")
    said = [p.text for c in request.contents if c.role == "user" for p in c.parts or [] if p.text]
    phone = next((t for t in said if any(ch.isdigit() for ch in t)), None)
    if phone is None:
        return say("What is your phone number?")
    name = next((t.removeprefix("I am ") for t in said if t.startswith("I am ")), "unknown")
    finish = types.FunctionCall(name="finish_task", args={"name": name, "phone": phone})
    return types.Content(role="model", parts=[types.Part(function_call=finish)])


intake = Agent(name="intake", mode="task", output_schema=Caller, model=model(intake_rule), instruction="Get name and phone.")


def greet(node_input: Caller):
    yield Event(message=f"Hello {node_input.name}, we will call {node_input.phone}.")


root_agent = Workflow(name="reception", edges=[("START", intake, greet)])

TURNS = ["I am Ann", "555-1234", "thanks"]
