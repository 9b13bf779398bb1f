"""workflow_node_as_tool's agent in a resumable app: google-adk 2.13 then also records the
checkpoints of the workflow the agent calls (its nodes' statuses, its end) and the node tool's
pause and resume."""

from google.adk import Agent
from google.adk.apps import App, ResumabilityConfig

from tools.parity.apps.workflow_node_as_tool import TURNS, clerk, order_lookup, refund
from tools.parity.apps.rule_model import model

SHOW_NODES = True

app = App(
    name="node_tools",
    root_agent=Agent(name="clerk", model=model(clerk), instruction="Help with orders.", tools=[order_lookup, refund]),
    resumability_config=ResumabilityConfig(is_resumable=True),
)

__all__ = ["app", "TURNS"]
