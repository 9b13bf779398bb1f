"""A resumable app whose root is an agent, asked to resume an invocation that has finished: as
google-adk 2.13, the agent runs it again (the model is asked again, on the conversation so far)."""

from google.adk import Agent
from google.adk.apps import App, ResumabilityConfig

from tools.parity.apps.rule_model import model, say

SHOW_NODES = True

writer = Agent(name="writer", model=model(lambda text, response, request: say(f"A draft about {text}")), instruction="Write.")

app = App(name="parity", root_agent=writer, resumability_config=ResumabilityConfig(is_resumable=True))

TURNS = ["tides", {"resume": 1}, "moons"]
