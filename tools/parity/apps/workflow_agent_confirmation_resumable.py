"""workflow_agent_confirmation's workflow in a resumable app: the agent node waits with its tool's
confirmation in the workflow's checkpoint (its interrupt id), and the answer resumes it."""

from google.adk.apps import App, ResumabilityConfig

from tools.parity.apps.workflow_agent_confirmation import TURNS, root_agent

SHOW_NODES = True

app = App(name="parity", root_agent=root_agent, resumability_config=ResumabilityConfig(is_resumable=True))

__all__ = ["app", "TURNS"]
