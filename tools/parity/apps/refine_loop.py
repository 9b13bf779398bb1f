"""The refine-and-exit LoopAgent: a writer keeps its draft in `output_key`, a critic stops the loop
with exit_loop, and the draft must survive the exit (its response has no text)."""

from google.adk.agents import LlmAgent, LoopAgent, SequentialAgent
from google.adk.tools import exit_loop

from tools.parity.apps.rule_model import call, model, say


def write(text, response, request):
    if response is not None:  # exit_loop answered: the writer stops writing
        return say("")
    rounds = sum(1 for c in request.contents for p in c.parts or [] if p.text and p.text.startswith("Draft"))
    if rounds >= 2:
        return call("exit_loop")
    return say(f"Draft {rounds + 1} of a poem about {text.split()[-1]}.")


writer = LlmAgent(
    name="writer",
    model=model(write),
    instruction="Write a draft, or call exit_loop when it is good.",
    tools=[exit_loop],
    output_key="document",
)
loop = LoopAgent(name="refine", sub_agents=[writer], max_iterations=4)
root_agent = SequentialAgent(name="poet", sub_agents=[loop])

TURNS = ["a poem about rain"]
