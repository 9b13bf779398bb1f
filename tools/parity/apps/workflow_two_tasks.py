"""Two task-mode agents on parallel branches both wait for the user at once: as google-adk 2.13
decides it, each of the user's next messages goes to the agents waiting; each finishes when its
model calls finish_task, and the join after them runs once both have."""

from google.adk import Agent, Workflow
from google.adk.workflow import JoinNode
from google.genai import types

from tools.parity.apps.rule_model import model, say

SHOW_NODES = True
SHOW_PATHS = True


def rule(topic):
    def answer(text, response, request):
        if response is not None:
            return say("Done.")
        said = [p.text for c in request.contents if c.role == "user" for p in c.parts or [] if p.text]
        wanted = next((t for t in said if topic in t), None)
        if wanted is None:
            return say(f"Which {topic}?")
        return types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
            name="finish_task", args={"result": wanted}))])
    return answer


color = Agent(name="color", mode="task", model=model(rule("color")), instruction="Ask for a color.")
size = Agent(name="size", mode="task", model=model(rule("size")), instruction="Ask for a size.")


def order(node_input: dict):
    return f"{node_input['color']} / {node_input['size']}"


root_agent = Workflow(name="shop", edges=[("START", (color, size), JoinNode(name="both"), order)])

TURNS = ["a shirt", "the color blue", "the size large", "thanks"]
