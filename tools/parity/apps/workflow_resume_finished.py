"""A resumable app asked to resume an invocation that has finished: as google-adk 2.13, the
workflow runs it again from its log, saying each node's output again (an agent node's answer as
its text) and its end; nothing runs twice, and a new message after it starts a new invocation."""

from google.adk import Agent, Event, Workflow
from google.adk.apps import App, ResumabilityConfig

from tools.parity.apps.rule_model import model, say

SHOW_NODES = True
SHOW_PATHS = True


def tag(node_input: str):
    return f"tagged {node_input}"


def note(node_input: str):
    return Event(message=f"noted {node_input}", state={"noted": True})


writer = Agent(name="writer", model=model(lambda text, response, request: say(f"A draft about {text}")), instruction="Write.")

app = App(
    name="parity",
    root_agent=Workflow(name="desk", edges=[("START", tag, note, writer)]),
    resumability_config=ResumabilityConfig(is_resumable=True),
)

TURNS = ["tides", {"resume": 1}, {"resume": 1}, "moons"]
