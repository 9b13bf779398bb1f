"""node_info.path of every agent's events: a root LlmAgent, agents it transfers to (and theirs),
and a SequentialAgent's sub-agents, across turns where the conversation stays with a sub-agent."""

from google.adk.agents import LlmAgent, SequentialAgent

from tools.parity.apps.rule_model import call, model, say

SHOW_PATHS = True


def route(**targets):
    """A rule that transfers to the agent named by a word of the user's text, else answers."""
    def rule(text, response, request):
        if response is None:
            for word, target in targets.items():
                if word in text:
                    return call("transfer_to_agent", agent_name=target)
        return say(f"answered: {text}")
    return rule


grand = LlmAgent(name="grand", model=model(route()), description="The grandchild.")
child = LlmAgent(name="child", model=model(route(grand="grand")), description="The child.", sub_agents=[grand])
steps = SequentialAgent(name="steps", sub_agents=[
    LlmAgent(name="first", model=model(route())), LlmAgent(name="second", model=model(route())),
])
root_agent = LlmAgent(
    name="root", model=model(route(steps="steps", child="child", grand="child")), sub_agents=[child, steps],
)

TURNS = ["hello", "run the steps", "to the child", "to the grand one", "more"]
