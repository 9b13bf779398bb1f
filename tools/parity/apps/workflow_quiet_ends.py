"""Nodes whose end ADK yields no event for: a node that only says a message, a nested workflow
(its terminal node's event said its output), a parent whose dynamic child gives its output
(use_as_output). What run_async yields and the session holds are the nodes' own events only."""

from google.adk import Context, Event, Workflow
from google.adk.workflow import node

SHOW_NODES = True


def greet(node_input: str):
    yield Event(state={"name": node_input})
    yield Event(message=f"Hello, {node_input}.")


def shout(name: str):
    return name.upper()


inner = Workflow(name="inner", edges=[("START", shout)])


def polish(node_input: str):
    return f"{node_input}!"


@node(rerun_on_resume=True)
async def delegate(ctx: Context, node_input: str):
    yield Event(message="Handing it on.")
    await ctx.run_node(polish, node_input, use_as_output=True)


def close(node_input):
    yield Event(message=f"Done: {node_input}")


root_agent = Workflow(name="quiet", edges=[("START", greet, inner, delegate, close)])

TURNS = ["world"]
