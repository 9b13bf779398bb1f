"""SQLite's errors as Chronicle's typed store errors (``Store.typed_error``)."""

from __future__ import annotations

import sqlite3

from domain.errors import ReadOnlyStoreError, StoreCorruptError, StoreError, StoreFullError, StoreUnavailableError
from runtime.stores.base import causes

# Primary result codes (the low byte of an extended one).
_UNAVAILABLE = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN}


def driver_error(error: BaseException) -> StoreError | None:
    """The typed error for the driver's error the given one is or wraps (None: it wraps none)."""
    for cause in causes(error):
        if isinstance(cause, sqlite3.Error):
            return _typed(cause)
    return None


def _typed(error: sqlite3.Error) -> StoreError:
    detail = f"SQLite: {' '.join(str(error).split())}"
    code = getattr(error, "sqlite_errorcode", None)
    code = None if code is None else code & 0xFF
    if code == sqlite3.SQLITE_READONLY or "readonly database" in str(error):
        return ReadOnlyStoreError(detail)
    if code == sqlite3.SQLITE_FULL:
        return StoreFullError(detail)
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return StoreCorruptError(detail)
    if code in _UNAVAILABLE:
        return StoreUnavailableError(detail)
    return StoreError(f"The store failed ({detail}).")


def missing_table(error: BaseException) -> bool:
    """Whether the error is (or wraps) SQLite's "no such table"."""
    return any(isinstance(c, sqlite3.OperationalError) and "no such table" in str(c) for c in causes(error))
