"""The nodes after START get the user's message itself (a Content), as google-adk 2.13 hands it: an
unannotated parameter the message, a `str` one its text, a `dict` one its text parsed as JSON. A
node that asks a person and runs again gets the same message back; an agent's answer is handed on
as its text."""

from google.adk import Context, Workflow
from google.adk.events import RequestInput
from google.adk.workflow import node

from tools.parity.apps.rule_model import model, say
from google.adk import Agent

SHOW_NODES = True


def whole(node_input):
    return f"{type(node_input).__name__} from {node_input.role}"


def as_text(node_input: str):
    return f"text {node_input!r}"


def parsed(node_input: dict | str):
    return f"{type(node_input).__name__} {node_input!r}"


@node(rerun_on_resume=True)
async def gather(ctx: Context, node_input):
    if not ctx.resume_inputs:
        yield RequestInput(interrupt_id="go", message=f"Go on with a {type(node_input).__name__}?")
        return
    parts = [await ctx.run_node(n, node_input) for n in (whole, as_text, parsed)]
    yield " | ".join(parts)


writer = Agent(
    name="writer", model=model(lambda text, response, request: say(f"Noted: {text}")), instruction="Note it.",
)


def tell(node_input):
    return f"{type(node_input).__name__}: {node_input}"


root_agent = Workflow(name="desk", edges=[("START", gather, writer, tell)])

TURNS = ['{"x": 1}', {"respond": {"result": "yes"}}, "plain words", {"respond": {"result": "yes"}}]
