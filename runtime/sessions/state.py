"""ADK's module path for State."""

from domain.state import State

__all__ = ["State"]
