"""google-adk 2.13's module path for NodeTool (runtime.workflow.node_tool holds it)."""

from runtime.workflow.node_tool import NodeTool

__all__ = ["NodeTool"]
