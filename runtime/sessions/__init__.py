"""Session services: ADK's API over Chronicle's event log."""

from domain.errors import AlreadyExistsError, SessionNotFoundError, StaleSessionError
from runtime.sessions.base import BaseSessionService, GetSessionConfig, ListSessionsResponse
from runtime.sessions.service import (
    InMemorySessionService,
    LogSessionService,
    PostgresSessionService,
    SqliteSessionService,
    session_service_from_url,
)

__all__ = [
    "AlreadyExistsError",
    "BaseSessionService",
    "GetSessionConfig",
    "InMemorySessionService",
    "ListSessionsResponse",
    "LogSessionService",
    "PostgresSessionService",
    "SessionNotFoundError",
    "SqliteSessionService",
    "StaleSessionError",
    "session_service_from_url",
]
