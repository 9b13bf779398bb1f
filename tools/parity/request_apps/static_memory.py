"""Where request-scoped contents go: a static_instruction's dynamic instruction and preload_memory's
memories, both before the current turn (after a tool's result when the model goes on from one);
and include_contents='none' over a tool call, then a later turn."""

from google.adk.agents import LlmAgent, SequentialAgent
from google.adk.tools import ToolContext, preload_memory

from tools.parity.apps.rule_model import call, model, say


def spell(word: str, tool_context: ToolContext) -> str:
    """Spells a word."""
    tool_context.state["last_word"] = word
    return "-".join(word)


def rule(text, response, request):
    if any(p.function_response for c in request.contents[-3:] for p in c.parts or []):
        return say("Spelled.")
    if "spell" in text:
        return call("spell", word="tea")
    return say("Noted.")


root_agent = SequentialAgent(name="speller", sub_agents=[
    LlmAgent(name="static", model=model(rule, "static"), static_instruction="You spell words.",
             instruction="Last word: {last_word?}.", tools=[spell, preload_memory]),
    LlmAgent(name="forgetful", model=model(rule, "forgetful"), instruction="Answer the last message only.",
             include_contents="none", tools=[spell]),
])

TURNS = ["I like tea", {"add_session_to_memory": True}, "please spell tea", "and again tea please spell"]
