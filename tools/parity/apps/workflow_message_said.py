"""A function node that gives back a Content (the user's message, or one it makes) says it as a
message, as google-adk 2.13 does: no output, so the next node gets none."""

from google.adk import Workflow
from google.genai import types

SHOW_NODES = True
SHOW_PATHS = True


def echo(node_input):
    return node_input


def reply(node_input):
    yield types.Content(role="model", parts=[types.Part(text=f"got {node_input!r}")])
    yield "done"


root_agent = Workflow(name="desk", edges=[("START", echo, reply)])

TURNS = ["tides"]
