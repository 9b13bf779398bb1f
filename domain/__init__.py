"""Chronicle's pure domain model: ADK-compatible events and sessions, and the log."""

from domain.errors import (
    AlreadyExistsError,
    ChronicleError,
    InputValidationError,
    InvalidArgumentError,
    InvocationNotFoundError,
    LlmCallsLimitExceededError,
    SessionNotFoundError,
    StaleSessionError,
    StoreError,
)
from domain.events import Event, EventActions, EventCompaction, NodeInfo
from domain.session_log import SessionLog, session_log_id
from domain.session import Session
from domain.state import State

__all__ = [
    "AlreadyExistsError",
    "ChronicleError",
    "Event",
    "EventActions",
    "EventCompaction",
    "NodeInfo",
    "InputValidationError",
    "InvalidArgumentError",
    "InvocationNotFoundError",
    "LlmCallsLimitExceededError",
    "Session",
    "SessionLog",
    "SessionNotFoundError",
    "StaleSessionError",
    "State",
    "StoreError",
    "session_log_id",
]
