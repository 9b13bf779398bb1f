"""A parallel worker right after START gets the user's message, as google-adk 2.13 fans it out:
a JSON list in the text is its items (typed by the node's `node_input` hint), other text one item."""

from google.adk import Workflow
from google.adk.workflow import node

SHOW_NODES = True


@node(parallel_worker=True)
def double(node_input: int):
    return node_input * 2


@node(parallel_worker=True)
def shout(node_input: str):
    return node_input.upper()


root_agent = Workflow(name="desk", edges=[("START", double)])
words = Workflow(name="words", edges=[("START", shout)])

TURNS = ["[1, 2, 3]", "[4]"]
