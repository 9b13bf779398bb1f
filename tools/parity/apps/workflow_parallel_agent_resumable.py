"""workflow_parallel_agent's workflow in a resumable app: each parallel run of the agent records
its own end (as google-adk 2.13), beside the workflow's checkpoints."""

from google.adk.apps import App, ResumabilityConfig

from tools.parity.apps.workflow_parallel_agent import TURNS, root_agent

SHOW_NODES = True

app = App(name="parity", root_agent=root_agent, resumability_config=ResumabilityConfig(is_resumable=True))

__all__ = ["app", "TURNS"]
