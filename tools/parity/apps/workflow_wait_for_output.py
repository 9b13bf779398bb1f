"""A node with wait_for_output gathers its inputs over several triggers: as google-adk 2.13, each
trigger is a run of its own (gather@1, @2, @3, on its trigger's branch), a run that ends with
neither output nor route waits and triggers nothing, and the run that outputs goes on; what the
runs gather they keep in state."""

from google.adk import Context, Event, Workflow
from google.adk.workflow import Node

SHOW_NODES = True
SHOW_PATHS = True


def a(node_input: str):
    return f"A:{node_input}"


def b(node_input: str):
    return f"B:{node_input}"


def c(node_input: str):
    return f"C:{node_input}"


class Gather(Node):
    wait_for_output: bool = True

    async def _run_impl(self, *, ctx: Context, node_input):
        got = list(ctx.state.get("got", [])) + [node_input]
        if len(got) < 3:
            yield Event(state={"got": got}, message=f"have {len(got)}")
            return
        yield Event(output=sorted(got), state={"got": []})


def after(node_input: list):
    return " + ".join(node_input)


root_agent = Workflow(name="desk", edges=[("START", (a, b, c), Gather(name="gather"), after)])

TURNS = ["tides", "moons"]
