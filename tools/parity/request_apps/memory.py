"""Memory: what preload_memory puts in the request (its words, and its place before the current
turn), and load_memory's declaration and instruction; the first conversation goes into the memory
service between turns."""

from google.adk.agents import LlmAgent, SequentialAgent
from google.adk.tools import load_memory, preload_memory

from tools.parity.apps.rule_model import model, say


def preloaded_rule(text, response, request):
    return say("Noted." if "like" in text else "You like green tea.")


def recall_rule(text, response, request):
    # It does not call load_memory: the entries it returns still carry Chronicle's extra
    # custom_metadata (session_id, invocation_id, score), a difference docs/adk.md lists.
    return say("Okay.")


root_agent = SequentialAgent(name="memory_pipeline", sub_agents=[
    LlmAgent(name="preloaded", model=model(preloaded_rule), instruction="Use what you remember.",
             tools=[preload_memory]),
    LlmAgent(name="recall", model=model(recall_rule), instruction="Look things up.", tools=[load_memory]),
])

TURNS = ["I like green tea", {"add_session_to_memory": True}, "which tea do I like?"]
