"""ADK's module path for AlreadyExistsError."""

from domain.errors import AlreadyExistsError

__all__ = ["AlreadyExistsError"]
