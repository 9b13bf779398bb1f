"""ADK's module path for the base node and START (google.adk.workflow._base_node)."""

from runtime.workflow.base_node import START, BaseNode

__all__ = ["START", "BaseNode"]
