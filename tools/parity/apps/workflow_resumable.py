"""A resumable app's workflow: google-adk 2.13 records a checkpoint of its nodes' statuses
(`agent_state`) as a node starts, waits and completes, and `end_of_agent` when the workflow ends.
A node asks a person (RequestInput), the invocation pauses, and the answer resumes it; a nested
workflow and two lanes that meet at a join are checkpointed too."""

from google.adk import Context, Event, Workflow
from google.adk.apps import App, ResumabilityConfig
from google.adk.events import RequestInput
from google.adk.workflow import JoinNode, node

SHOW_NODES = True


def draft(node_input: str):
    yield Event(state={"draft": f"Dear customer, about {node_input}: sorry."})


def spell(draft: str):
    return draft.replace("sorry", "very sorry")


def tone(draft: str):
    return "polite"


merge = JoinNode(name="merge")


@node(rerun_on_resume=True)
def review(node_input: dict, ctx: Context):
    answer = ctx.resume_inputs.get("review")
    if not answer:
        yield RequestInput(interrupt_id="review", message=f"Approve this draft?\n{node_input['spell']}")
        return
    yield Event(route="approved" if answer == "approve" else "rejected")


def stamp(node_input: str):
    return f"stamped {node_input}"


def send(draft: str):
    return Event(output=f"sent: {draft}", state={"sent": True})


posting = Workflow(name="posting", edges=[("START", send, stamp)])


def drop():
    return Event(output="dropped", state={"sent": False})


app = App(
    name="parity",
    root_agent=Workflow(
        name="mailroom",
        edges=[("START", draft, (spell, tone), merge, review, {"approved": posting, "rejected": drop})],
    ),
    resumability_config=ResumabilityConfig(is_resumable=True),
)

TURNS = ["a broken phone", {"respond": {"result": "approve"}}]
