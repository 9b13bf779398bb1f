"""A node asks a person (RequestInput), the workflow pauses, and the answer resumes it: the node
runs again with the answer in ctx.resume_inputs (rerun_on_resume) and routes on it."""

from google.adk import Context, Event, Workflow
from google.adk.events import RequestInput
from google.adk.workflow import node

SHOW_NODES = True


def draft(node_input: str):
    yield Event(state={"draft": f"Dear customer, about {node_input}: sorry."})


@node(rerun_on_resume=True)
def review(draft: str, ctx: Context):
    answer = ctx.resume_inputs.get("review")
    if not answer:
        yield RequestInput(interrupt_id="review", message=f"Approve this draft?\n{draft}")
        return
    yield Event(route="approved" if answer == "approve" else "rejected")


def send(draft: str):
    return Event(output=f"sent: {draft}", state={"sent": True})


def drop():
    return Event(output="dropped", state={"sent": False})


root_agent = Workflow(
    name="mailroom",
    edges=[("START", draft, review, {"approved": send, "rejected": drop})],
)

TURNS = ["a broken phone", {"respond": {"result": "approve"}}]
