"""Agents as workflow nodes: each sees its node input as the user's turn (not the session's
history); an output_key's value binds a later node's parameter of that name; a node that
triggers two puts each on a branch of its own, and the join between them on the shared one."""

from google.adk import Agent, Workflow
from google.adk.workflow import JoinNode

from tools.parity.apps.rule_model import model, say

SHOW_NODES = True

writer = Agent(
    name="writer", model=model(lambda text, response, request: say(f"A draft about {text}")),
    instruction="Write a draft.", output_key="draft",
)


def review(draft: str):
    return f"reviewed: {draft}"


def shout(node_input: str):
    return node_input.upper()


def count(node_input: str):
    return len(node_input)


def brief(node_input: dict):
    return f"{node_input['shout']} ({node_input['count']} characters)"


summarizer = Agent(
    name="summarizer", model=model(lambda text, response, request: say(f"In short: {text}")),
    instruction="Summarize.",
)

root_agent = Workflow(
    name="desk",
    edges=[("START", writer, review, (shout, count), JoinNode(name="both"), brief, summarizer)],
)

TURNS = ["tides", "moons"]
