"""ToolContext: what a tool gets. As in ADK 2.x it is the one Context class (runtime.agents.context)."""

from __future__ import annotations

from runtime.contexts import Context

ToolContext = Context

__all__ = ["ToolContext"]
