"""A chat agent whose sub-agents run in `mode="single_turn"` (google-adk 2.13): each is a tool of the
coordinator (its declaration an AgentTool's: its input_schema, else `request`); a call runs the
sub-agent on that input alone, on a branch of its own, and its answer (parsed by its
output_schema) is the call's result."""

from google.adk import Agent
from google.genai import types
from pydantic import BaseModel

from tools.parity.apps.rule_model import model, say

SHOW_NODES = True


class Verdict(BaseModel):
    word: str
    letters: int


def counter_rule(text, response, request):
    return say(f'{{"word": "{text}", "letters": {len(text)}}}')


counter = Agent(
    name="counter", mode="single_turn", model=model(counter_rule), output_schema=Verdict,
    description="Counts a word's letters.", instruction="Count the letters of the word.",
)

rhymer = Agent(
    name="rhymer", mode="single_turn", model=model(lambda text, response, request: say(f"{text} rhymes with moon")),
    description="Finds a rhyme.", instruction="Find a rhyme.",
)


def call(name, call_id, **args):  # with its own id: the sub-agent's branch carries it
    return types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(id=call_id, name=name, args=args))])


def lead_rule(text, response, request):
    if response is None:
        return call("counter", "call-1", request="tides")
    if response.name == "counter":
        return call("rhymer", "call-2", request="spoon")
    return say(f"Done: {response.response}")


root_agent = Agent(name="lead", model=model(lead_rule), instruction="Use your helpers.", sub_agents=[counter, rhymer])

TURNS = ["help me with words"]
