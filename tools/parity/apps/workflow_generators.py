"""A workflow of every kind of function node: a sync generator that yields state, a message and its
output; a sync function that returns an Event with a route; an async function whose parameter is
read from state; an async generator. What the nodes yield is what run_async yields, in order,
by the workflow, at `support@1/<node>@1`."""

from google.adk import Event, Workflow

SHOW_NODES = True


def intake(node_input: str):
    yield Event(state={"ask": node_input})
    yield Event(message=f"Looking at {node_input!r}.")
    yield node_input.lower()


def triage(node_input: str):
    return Event(output=node_input, route="refund" if "refund" in node_input else "other")


async def refund(node_input: str, ask: str):
    return f"a refund, as asked in {ask!r}"


async def other(node_input: str):
    yield Event(message="Passing it on.")
    yield Event(state={"passed": node_input}, route="done")


root_agent = Workflow(name="support", edges=[("START", intake, triage, {"refund": refund, "other": other})])

TURNS = ["I want a REFUND", "Hello there"]
