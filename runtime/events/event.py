"""ADK's module path for Event."""

from domain.events import Event, NodeInfo

__all__ = ["Event", "NodeInfo"]
