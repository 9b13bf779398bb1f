"""ADK's module path for Event."""

from domain.events import Event

__all__ = ["Event"]
