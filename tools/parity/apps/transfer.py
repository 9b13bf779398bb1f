"""A coordinator that hands the conversation to a sub-agent, which keeps it next turn."""

from google.adk.agents import LlmAgent

from tools.parity.apps.rule_model import call, model, say


def coordinator_rule(text, response, request):
    if "invoice" in text:
        return call("transfer_to_agent", agent_name="billing")
    return say("How can I help?")


def billing_rule(text, response, request):
    return say(f"Billing here, about: {text}.")


billing = LlmAgent(name="billing", model=model(billing_rule), description="Handles invoices.", instruction="Bill.")
root_agent = LlmAgent(
    name="coordinator",
    model=model(coordinator_rule),
    instruction="Route requests.",
    sub_agents=[billing],
)

TURNS = ["hello", "my invoice is wrong", "it says 30 euros"]
