"""Compaction: after every two invocations the events are summarised by a model (its request is
compared too), and later requests show the summary in place of what it covers."""

from google.adk.agents import LlmAgent
from google.adk.apps.app import App, EventsCompactionConfig
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer

from tools.parity.apps.rule_model import call, model, say


def lookup(topic: str) -> dict:
    """Looks a topic up."""
    return {"topic": topic, "found": True}


def rule(text, response, request):
    if response is not None:
        return say("Found.")
    if "look" in text:
        return call("lookup", topic=text.split()[-1])
    return say(f"You said: {text}")


def summarise(text, response, request):
    return say("Summary: the user asked about tea and looked up coffee.")


app = App(
    name="compaction",
    root_agent=LlmAgent(name="talker", model=model(rule), instruction="Talk.", tools=[lookup]),
    events_compaction_config=EventsCompactionConfig(
        compaction_interval=2, overlap_size=0, summarizer=LlmEventSummarizer(llm=model(summarise))),
)

TURNS = ["hello about tea", "look up coffee", "and now?", "one more", "look up milk", "last one"]
