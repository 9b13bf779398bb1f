"""A node's input is checked against its parameter's annotation, as google-adk 2.13 checks it:
"3" for an `int` becomes 3, and None for a `str` fails the node with ADK's error event."""

from google.adk import Workflow

SHOW_NODES = True


def count(node_input: str):
    return str(len(node_input.split()))


def double(node_input: int):
    return node_input * 2


def quiet(node_input: int):
    return None


def close(node_input: str):
    return f"closed {node_input}"


root_agent = Workflow(name="typed", edges=[("START", count, double, quiet, close)])

TURNS = ["one two three"]
