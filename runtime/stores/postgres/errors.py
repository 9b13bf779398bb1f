"""PostgreSQL's errors (psycopg's, its pool's) as Chronicle's typed store errors (``Store.typed_error``)."""

from __future__ import annotations

import psycopg
import psycopg_pool

from domain.errors import ReadOnlyStoreError, StoreCorruptError, StoreError, StoreFullError, StoreUnavailableError
from runtime.stores.base import causes

# SQLSTATEs: class 53 is insufficient resources; 25006 a write in a read-only transaction (a hot
# standby, default_transaction_read_only); 42501 no privilege (a read-only role).
_FULL = {"53100", "53200", "53400"}  # disk full, out of memory, configuration limit exceeded
_READ_ONLY = {"25006", "42501"}
_CORRUPT = {"XX001", "XX002"}  # data_corrupted, index_corrupted


def driver_error(error: BaseException) -> StoreError | None:
    """The typed error for the driver's error the given one is or wraps (None: it wraps none)."""
    for cause in causes(error):
        if isinstance(cause, psycopg.Error):
            return _typed(cause)
        if isinstance(cause, psycopg_pool.PoolTimeout):
            return StoreUnavailableError(f"PostgreSQL: no connection within the pool's timeout: {cause}")
    return None


def _typed(error: psycopg.Error) -> StoreError:
    detail = f"PostgreSQL: {' '.join(str(error).split()) or type(error).__name__}"
    state = error.sqlstate or ""
    if state in _READ_ONLY:
        return ReadOnlyStoreError(detail)
    if state in _FULL:
        return StoreFullError(detail)
    if state in _CORRUPT:
        return StoreCorruptError(detail)
    if isinstance(error, (psycopg.OperationalError, psycopg.InterfaceError)) or state[:2] in ("08", "57"):
        return StoreUnavailableError(detail)  # the connection broke, the server shut down, ...
    return StoreError(f"The store failed ({detail}).")


def missing_table(error: BaseException) -> bool:
    """Whether the error is (or wraps) PostgreSQL's undefined_table (42P01)."""
    return any(isinstance(c, psycopg.Error) and c.sqlstate == "42P01" for c in causes(error))
