"""A dynamic child that raises: its error event is the only one (the parent that ran it is not
told again), authored by the workflow; the turn raises the child's error."""

from google.adk import Context, Event, Workflow
from google.adk.workflow import node

SHOW_NODES = True


def check(node_input: str):
    raise ValueError(f"cannot check {node_input!r}")


@node(rerun_on_resume=True)
async def orchestrate(ctx: Context, node_input: str):
    yield Event(message="Checking.")
    yield await ctx.run_node(check, node_input)


root_agent = Workflow(name="checker", edges=[("START", orchestrate)])

TURNS = ["the report"]
