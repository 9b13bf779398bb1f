"""ADK's module path for Event (which, as in ADK, also gives EventActions)."""

from domain.events import Event, EventActions, NodeInfo

__all__ = ["Event", "EventActions", "NodeInfo"]
