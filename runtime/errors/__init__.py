"""ADK's errors package: Chronicle's typed errors (their one home is domain.errors)."""

from domain.errors import (
    AlreadyExistsError,
    InputValidationError,
    InvocationNotFoundError,
    ReadOnlyStoreError,
    SessionNotFoundError,
    StaleSessionError,
    StoreError,
    StoreFullError,
    StoreUnavailableError,
)

__all__ = [
    "AlreadyExistsError",
    "InputValidationError",
    "InvocationNotFoundError",
    "ReadOnlyStoreError",
    "SessionNotFoundError",
    "StaleSessionError",
    "StoreError",
    "StoreFullError",
    "StoreUnavailableError",
]
