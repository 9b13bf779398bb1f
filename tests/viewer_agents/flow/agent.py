"""A workflow with a branch: `classify` routes a long message to `summarise` then `file`, a short one
to `reply`. The viewer draws its whole graph with the path a run took."""

from runtime import Event
from runtime.workflow import START, Workflow


def classify(node_input: str):
    return Event(output=node_input, route="long" if len(node_input) > 12 else "short")


def summarise(node_input: str) -> str:
    return node_input[:12] + "…"


def file(node_input: str) -> str:
    return f"filed: {node_input}"


def reply(node_input: str) -> str:
    return f"noted: {node_input}"


root_agent = Workflow(name="triage", edges=[(START, classify, {"long": summarise, "short": reply}), (summarise, file)])
