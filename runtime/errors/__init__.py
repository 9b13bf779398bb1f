"""ADK's errors package: Chronicle's typed errors (their one home is domain.errors)."""

from domain.errors import AlreadyExistsError, InvocationNotFoundError, SessionNotFoundError, StaleSessionError

__all__ = ["AlreadyExistsError", "InvocationNotFoundError", "SessionNotFoundError", "StaleSessionError"]
