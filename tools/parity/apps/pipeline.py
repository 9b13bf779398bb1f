"""A SequentialAgent whose second agent reads the first one's output_key."""

from google.adk.agents import LlmAgent, SequentialAgent

from tools.parity.apps.rule_model import model, say


def draft_rule(text, response, request):
    return say(f"Draft about {text}.")


def review_rule(text, response, request):
    instruction = request.config.system_instruction if request.config else ""
    return say("Approved." if "Draft about" in str(instruction) else "Nothing to review.")


writer = LlmAgent(name="writer", model=model(draft_rule), instruction="Write a draft.", output_key="draft")
reviewer = LlmAgent(
    name="reviewer", model=model(review_rule), instruction="Review this draft: {draft}", output_key="review"
)
root_agent = SequentialAgent(name="pipeline", sub_agents=[writer, reviewer])

TURNS = ["otters", "badgers"]
