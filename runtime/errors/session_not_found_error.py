"""ADK's module path for SessionNotFoundError."""

from domain.errors import SessionNotFoundError

__all__ = ["SessionNotFoundError"]
