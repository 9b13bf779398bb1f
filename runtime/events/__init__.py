"""ADK's events package: the event model lives in domain.events; these are the same classes."""

from domain.events import Event, EventActions, EventCompaction
from runtime.events.request_input import RequestInput

__all__ = ["Event", "EventActions", "EventCompaction", "RequestInput"]
