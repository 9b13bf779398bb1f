"""ADK's module path for SqliteSessionService."""

from runtime.sessions.service import SqliteSessionService

__all__ = ["SqliteSessionService"]
