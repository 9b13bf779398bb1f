"""task_agents' chat agent in a resumable app: the task's turn records its end, the user's reply
goes on in the same invocation, and the chat agent ends it (as google-adk 2.13)."""

from google.adk.apps import App, ResumabilityConfig

from tools.parity.apps.task_agents import TURNS, root_agent

SHOW_NODES = True

app = App(name="parity", root_agent=root_agent, resumability_config=ResumabilityConfig(is_resumable=True))

__all__ = ["app", "TURNS"]
