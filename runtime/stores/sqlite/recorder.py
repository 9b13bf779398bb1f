"""The embedded SQLite store: one file in WAL mode, on eventsourcing's SQLite recorder."""

from __future__ import annotations

import json
import sqlite3
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence, TypeVar
from uuid import UUID

from eventsourcing import persistence
from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import (
    SQLiteApplicationRecorder,
    SQLiteConnection,
    SQLiteConnectionPool,
    SQLiteCursor,
    SQLiteDatastore,
)
from pydantic_core import to_json

from runtime.stores.base import CatalogRow, Listing, ScopedReads, SideRows, scoped_by_user
from runtime.stores.sql import RowReads, select_events_sql
from runtime.stores.catalog_sql import CATALOG_COLUMNS
from runtime.stores.sqlite.catalog import catalog_query, catalog_rows

T = TypeVar("T")

EVENTS_TABLE = "chronicle_events"


class _StatementCachingPool(SQLiteConnectionPool):
    """The library's pool keeps one prepared statement per connection; an append runs
    four, so each was parsed again every time. These connections keep them all."""

    read_only = False

    def _create_connection(self) -> SQLiteConnection:
        connection = sqlite3.connect(
            self.db_name,
            uri=True,
            check_same_thread=False,
            isolation_level=None,  # transactions are begun explicitly by the datastore
            cached_statements=256,
            timeout=self.lock_timeout or 5,
        )
        if not self.is_sqlite_memory_mode and not self.read_only:
            connection.execute("PRAGMA journal_mode=WAL")
        connection.row_factory = sqlite3.Row
        return SQLiteConnection(sqlite_conn=connection, max_age=self.max_age)


class _Datastore(SQLiteDatastore):
    """Writes go through one connection kept for them, under a lock, instead of a pool
    checkout with the pool's writer interlock (several µs of a durable append). A private
    in-memory database keeps the pool's reader/writer interlock, which shared-cache mode
    needs."""

    def __init__(self, db_name: str, *, lock_timeout: int, pool_size: int, read_only: bool = False):
        super().__init__(db_name, lock_timeout=lock_timeout, pool_size=pool_size)
        self.read_only = read_only  # opened with mode=ro or immutable=1: every write is refused
        self.pool = _StatementCachingPool(db_name=db_name, lock_timeout=lock_timeout, pool_size=pool_size)
        self.pool.read_only = read_only
        self._write_lock = threading.Lock()
        self._writer: SQLiteConnection | None = None

    def write(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(cursor, *args, **kwargs)`` in one write transaction, its sqlite3 errors
        raised as the library's. An append's path: no generator-based context manager."""
        if self.pool.is_sqlite_memory_mode:
            with super().transaction(commit=True) as cursor:
                return fn(cursor, *args, **kwargs)
        with self._write_lock:
            connection = self._writer_connection()._sqlite_conn
            cursor = connection.cursor()
            try:
                cursor.execute("BEGIN")
                result = fn(SQLiteCursor(cursor), *args, **kwargs)
                connection.commit()
                return result
            except BaseException as error:
                connection.rollback()
                raise _persistence_error(error) from error
            finally:
                cursor.close()

    @contextmanager
    def transaction(self, *, commit: bool) -> Iterator[SQLiteCursor]:
        if not commit or self.pool.is_sqlite_memory_mode:
            with super().transaction(commit=commit) as cursor:
                yield cursor
            return
        with self._write_lock, self._writer_connection().transaction(commit=True) as cursor:
            yield cursor

    def _writer_connection(self) -> SQLiteConnection:
        if self._writer is None:
            self._writer = self.pool._create_connection()
        return self._writer

    def close(self) -> None:
        with self._write_lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None
        super().close()


def _json_text(value: Any) -> str:
    return to_json(value).decode()


def _persistence_error(error: BaseException) -> BaseException:
    """The library's error for a sqlite3 error: both follow DB-API, so the names match
    (an IntegrityError is what tells a writer it lost a race)."""
    if not isinstance(error, sqlite3.Error):
        return error
    return getattr(persistence, type(error).__name__, persistence.PersistenceError)(error)


class SqliteLogRecorder(ScopedReads, RowReads, SQLiteApplicationRecorder):
    def construct_create_table_statements(self) -> list[str]:
        return [
            *super().construct_create_table_statements(),
            "CREATE TABLE IF NOT EXISTS chronicle_event_ids ("
            " log_id TEXT NOT NULL, event_id TEXT NOT NULL, version INTEGER NOT NULL,"
            " PRIMARY KEY (log_id, event_id)) WITHOUT ROWID",
            "CREATE TABLE IF NOT EXISTS chronicle_sessions ("
            " log_id TEXT PRIMARY KEY, app_name TEXT NOT NULL, user_id TEXT NOT NULL,"
            " session_id TEXT NOT NULL, created_time REAL NOT NULL, last_update_time REAL NOT NULL,"
            " version INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, state TEXT)",
            # Not on last_update_time: every append changes it, and an indexed column makes
            # each update a new index entry (on PostgreSQL, index bloat on the hot row).
            "CREATE INDEX IF NOT EXISTS chronicle_sessions_by_user"
            " ON chronicle_sessions (app_name, user_id)",
            # A session named by its id alone (`chronicle history ID`): found without a scan.
            "CREATE INDEX IF NOT EXISTS chronicle_sessions_by_id ON chronicle_sessions (session_id)",
            "DROP INDEX IF EXISTS chronicle_sessions_by_app",  # the former index, on last_update_time
            "CREATE TABLE IF NOT EXISTS chronicle_scoped_state ("
            " app_name TEXT NOT NULL, user_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT,"
            " PRIMARY KEY (app_name, user_id, key)) WITHOUT ROWID",
        ]

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        datastore: _Datastore = self.datastore  # type: ignore[assignment]
        return datastore.write(self._insert_events, stored_events, **kwargs)

    def _insert_events(
        self, c: SQLiteCursor, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        # One statement for all the events; the library's runs one per event to collect
        # notification ids, which nothing here reads.
        c.executemany(
            self.insert_events_statement,
            [(s.originator_id.hex, s.originator_version, s.topic, s.state) for s in stored_events],
        )
        side: SideRows | None = kwargs.get("side")
        if side:
            if side.claims:
                c.executemany(
                    "INSERT INTO chronicle_event_ids VALUES (?, ?, ?)",
                    [(log_id.hex, event_id, version) for log_id, event_id, version in side.claims],
                )
            if side.new_sessions:
                c.executemany(
                    f"INSERT INTO chronicle_sessions ({CATALOG_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)",
                    [(r.log_id.hex, r.app_name, r.user_id, r.session_id, r.created_time, r.last_update_time,
                      r.version, int(r.deleted), _json_text(r.state or {})) for r in side.new_sessions],
                )
            if side.updated_sessions:
                c.executemany(
                    "UPDATE chronicle_sessions SET last_update_time = ?, version = ?, deleted = ?,"
                    " state = COALESCE(?, state) WHERE log_id = ?",
                    [(r.last_update_time, r.version, int(r.deleted),
                      None if r.state is None else _json_text(r.state), r.log_id.hex) for r in side.updated_sessions],
                )
            if side.scoped:
                c.executemany(
                    "INSERT INTO chronicle_scoped_state VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (app_name, user_id, key) DO UPDATE SET value = excluded.value",
                    [(a, u, k, json.dumps(v)) for a, u, k, v in side.sorted_scoped()],
                )
        return None

    def select_rows(
        self, log_id: UUID, *, gt: int | None = None, lte: int | None = None, desc: bool = False,
        limit: int | None = None,
    ) -> list[tuple[int, str, bytes]]:
        sql, params = select_events_sql(self.events_table_name, "?", log_id.hex, gt, lte, desc, limit)
        with self.datastore.transaction(commit=False) as c:
            c.sqlite_cursor.row_factory = None
            c.execute(sql, params)
            return c.fetchall()  # type: ignore[no-any-return]

    def find_claim(self, log_id: UUID, event_id: str) -> int | None:
        with self.datastore.transaction(commit=False) as c:
            c.execute(
                "SELECT version FROM chronicle_event_ids WHERE log_id = ? AND event_id = ?",
                (log_id.hex, event_id),
            )
            row = c.fetchone()
        return None if row is None else row[0]

    def select_claims(self, log_id: UUID, event_ids: Sequence[str] | None = None) -> dict[str, int]:
        sql, params = "SELECT event_id, version FROM chronicle_event_ids WHERE log_id = ?", [log_id.hex]
        if event_ids is not None:
            sql += f" AND event_id IN ({','.join('?' * len(event_ids))})"
            params += event_ids
        with self.datastore.transaction(commit=False) as c:
            c.execute(sql, params)
            return {row[0]: row[1] for row in c.fetchall()}

    def count_claims(self, log_id: UUID) -> int:
        with self.datastore.transaction(commit=False) as c:
            c.execute("SELECT count(*) FROM chronicle_event_ids WHERE log_id = ?", (log_id.hex,))
            return int(c.fetchone()[0])

    def select_listing(self, app_name: str, user_id: str | None) -> list[Listing]:
        sql = (
            "SELECT session_id, user_id, last_update_time, version, state FROM chronicle_sessions"
            " WHERE app_name = ? AND deleted = 0"
        )
        params: list[Any] = [app_name]
        if user_id is not None:
            sql += " AND user_id = ?"
            params.append(user_id)
        with self.datastore.transaction(commit=False) as c:
            c.sqlite_cursor.row_factory = None  # plain tuples: a Row per session costs more
            c.execute(sql + " ORDER BY last_update_time", params)
            return c.fetchall()  # type: ignore[no-any-return]

    def select_catalog(
        self, app_name: str | None = None, user_id: str | None = None, *, log_id: UUID | None = None,
        session_id: str | None = None,
    ) -> list[CatalogRow]:
        """Every session (deleted ones too), for operators: filter by app, user and session id, or one by its log id."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(*catalog_query(app_name, user_id, log_id, session_id))
            return catalog_rows(c.fetchall())

    def select_scoped_rows(self, app_name: str, user_id: str | None) -> dict[str, dict[str, Any]]:
        sql, params = "SELECT user_id, key, value FROM chronicle_scoped_state WHERE app_name = ?", [app_name]
        if user_id is not None:
            sql, params = sql + " AND user_id IN ('', ?)", [app_name, user_id]
        with self.datastore.transaction(commit=False) as c:
            c.execute(sql, params)
            rows = c.fetchall()
        return scoped_by_user((u, key, json.loads(value)) for u, key, value in rows)
