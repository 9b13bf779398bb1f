"""An agent used as a tool by another agent."""

from google.adk.agents import LlmAgent
from google.adk.tools.agent_tool import AgentTool

from tools.parity.apps.rule_model import call, model, say


def summarizer_rule(text, response, request):
    return say(f"Summary: {text[:20]}")


def root_rule(text, response, request):
    if response is not None:
        return say(f"Here you go. {response.response['result']}")
    return call("summarizer", request=text)


summarizer = LlmAgent(name="summarizer", model=model(summarizer_rule), description="Summarizes text.", instruction="Summarize.")
root_agent = LlmAgent(name="assistant", model=model(root_rule), instruction="Help.", tools=[AgentTool(agent=summarizer)])

TURNS = ["please summarize the history of the printing press"]
