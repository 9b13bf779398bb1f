"""A transfer tree: a root with sub-agents, one of which has its own sub-agent, with the
disallow_transfer flags, an agent without a description, and a SequentialAgent child whose
LlmAgents see transfer instructions of their own. Each transfer is followed across turns, so
every agent's view of the others' turns is compared too."""

from google.adk.agents import LlmAgent, SequentialAgent

from tools.parity.apps.rule_model import call, model, say


def root_rule(text, response, request):
    if "refund" in text:
        return call("transfer_to_agent", agent_name="billing")
    if "report" in text:
        return call("transfer_to_agent", agent_name="reporting")
    return say("Root here.")


def billing_rule(text, response, request):
    if "dispute" in text:
        return call("transfer_to_agent", agent_name="disputes")
    if "tech" in text:
        return call("transfer_to_agent", agent_name="tech")
    return say(f"Billing: {text}")


def disputes_rule(text, response, request):
    if "done" in text:
        return call("transfer_to_agent", agent_name="billing")
    return say("Disputes: noted.")


def tech_rule(text, response, request):
    return say("Tech: try turning it off and on.")


def step_rule(text, response, request):
    return say("Step done.")


disputes = LlmAgent(name="disputes", model=model(disputes_rule), description="Handles disputes.",
                    instruction="Resolve disputes.", disallow_transfer_to_peers=True)
billing = LlmAgent(name="billing", model=model(billing_rule), description="Handles invoices and refunds.",
                   instruction="Bill.", sub_agents=[disputes])
tech = LlmAgent(name="tech", model=model(tech_rule), description="Fixes things.", instruction="Fix.",
                disallow_transfer_to_parent=True, disallow_transfer_to_peers=True)
reporting = SequentialAgent(name="reporting", description="Writes reports.", sub_agents=[
    LlmAgent(name="gather", model=model(step_rule, "gather"), instruction="Gather facts."),
    LlmAgent(name="write", model=model(step_rule, "write"), instruction="Write it up.",
             sub_agents=[LlmAgent(name="editor", model=model(step_rule, "editor"))]),
])
root_agent = LlmAgent(name="front_desk", model=model(root_rule), instruction="Route.",
                      sub_agents=[billing, tech, reporting])

TURNS = ["I want a refund", "and a dispute please", "ok done", "tech question", "hello", "weekly report"]
