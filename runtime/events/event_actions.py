"""ADK's module path for EventActions."""

from domain.events import EventActions, EventCompaction

__all__ = ["EventActions", "EventCompaction"]
