"""ADK's module path for the session-service API."""

from runtime.sessions.base import BaseSessionService, GetSessionConfig, ListSessionsResponse

__all__ = ["BaseSessionService", "GetSessionConfig", "ListSessionsResponse"]
