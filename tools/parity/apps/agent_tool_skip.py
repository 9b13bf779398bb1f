"""AgentTool(skip_summarization=True): the inner agent's answer is the outer agent's last word,
with the state the inner agent wrote (output_key) carried back."""

from google.adk.agents import LlmAgent
from google.adk.tools.agent_tool import AgentTool

from tools.parity.apps.rule_model import call, model, say


def researcher_rule(text, response, request):
    return say(f"Findings on {text.split()[-1]}: it is old.")


def root_rule(text, response, request):
    if response is not None:
        return say("never asked: the tool's answer is the last word")
    return call("researcher", request=text)


researcher = LlmAgent(name="researcher", model=model(researcher_rule), description="Researches a topic.",
                      instruction="Research.", output_key="findings")
root_agent = LlmAgent(name="assistant", model=model(root_rule), instruction="Help.",
                      tools=[AgentTool(agent=researcher, skip_summarization=True)], output_key="answer")

TURNS = ["research printing", "research paper"]
