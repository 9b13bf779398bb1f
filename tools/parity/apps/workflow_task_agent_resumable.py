"""workflow_task_agent's workflow in a resumable app: google-adk 2.13 then also records the workflow's
checkpoints and each agent node's end (see docs/workflows.md, "Checkpoints of a resumable app")."""

from google.adk.apps import App, ResumabilityConfig

from tools.parity.apps.workflow_task_agent import TURNS, root_agent

SHOW_NODES = True

app = App(name="parity", root_agent=root_agent, resumability_config=ResumabilityConfig(is_resumable=True))

__all__ = ["app", "TURNS"]
