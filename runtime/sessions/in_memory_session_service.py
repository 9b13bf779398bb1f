"""ADK's module path for InMemorySessionService."""

from runtime.sessions.service import InMemorySessionService

__all__ = ["InMemorySessionService"]
