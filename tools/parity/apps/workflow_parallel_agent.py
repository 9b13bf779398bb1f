"""An agent with parallel_worker=True as a workflow node: it runs once per item of its list
input, each item on a branch of its own, and its output is the list of the items' answers (parsed
by its output_schema), in input order, for the next node."""

from google.adk import Agent, Event, Workflow
from pydantic import BaseModel

from tools.parity.apps.rule_model import last_text, model

SHOW_NODES = True


class Note(BaseModel):
    topic: str
    note: str


def split(node_input: str):
    yield Event(state={"topic": node_input})
    yield [word for word in node_input.split() if len(word) > 3]


def explain_rule(text, response, request):
    from google.genai import types

    word = text.strip()
    return types.Content(role="model", parts=[types.Part(text=f'{{"topic": "{word}", "note": "{len(word)} letters"}}')])


explain = Agent(
    name="explain",
    model=model(explain_rule),
    instruction="Say something about this word, for the topic {topic}.",
    parallel_worker=True,
    output_schema=Note,
)


def gather(node_input: list[Note]):
    return Event(message="; ".join(f"{n.topic}: {n.note}" for n in node_input))


root_agent = Workflow(name="notes", edges=[("START", split, explain, gather)])

TURNS = ["tall green flowers bloom"]
