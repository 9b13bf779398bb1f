"""Three lanes each trigger the same node, in a resumable app: as google-adk 2.13, the runs that
have ended are handled together before new ones start, and the node's runs follow one another, so
the checkpoints (agent_state) come in ADK's order."""

from google.adk import Event, Workflow
from google.adk.apps import App, ResumabilityConfig

SHOW_NODES = True


def shout(node_input: str):
    return node_input.upper()


def count(node_input: str):
    return len(node_input)


def mirror(node_input: str):
    return node_input[::-1]


async def tell(node_input):
    yield Event(message=f"got {node_input}")


app = App(
    name="parity",
    root_agent=Workflow(name="lanes", edges=[("START", (shout, count, mirror), tell)]),
    resumability_config=ResumabilityConfig(is_resumable=True),
)

TURNS = ["tide"]
