"""workflow_wait_for_output in a resumable app: the checkpoints (agent_state) show each run of the
gathering node waiting, then completing, as google-adk 2.13 writes them."""

from google.adk.apps import App, ResumabilityConfig

from tools.parity.apps.workflow_wait_for_output import TURNS, root_agent  # noqa: F401

SHOW_NODES = True
SHOW_PATHS = True

app = App(name="parity", root_agent=root_agent, resumability_config=ResumabilityConfig(is_resumable=True))
