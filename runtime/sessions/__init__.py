"""Session services: ADK's API over Chronicle's event log."""

from domain.errors import AlreadyExistsError, SessionNotFoundError, StaleSessionError
from domain.session import Session
from domain.state import State
from runtime.sessions.base import BaseSessionService, GetSessionConfig, ListSessionsResponse
from runtime.sessions.database_session_service import DatabaseSessionService
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
    "DatabaseSessionService",
    "GetSessionConfig",
    "InMemorySessionService",
    "ListSessionsResponse",
    "LogSessionService",
    "PostgresSessionService",
    "Session",
    "SessionNotFoundError",
    "SqliteSessionService",
    "StaleSessionError",
    "State",
    "session_service_from_url",
]
