"""The PostgreSQL store: eventsourcing's recorder on a psycopg 3 pool, shared by many processes."""

from __future__ import annotations

import json
from typing import Any, Sequence
from urllib.parse import unquote, urlparse
from uuid import UUID

from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder, PostgresDatastore
from psycopg import Cursor
from psycopg.rows import DictRow
from psycopg.sql import SQL

from domain.errors import StoreError
from runtime.stores.base import CatalogRow, SideRows, Store

EVENTS_TABLE = "chronicle_events"
SNAPSHOTS_TABLE = "chronicle_snapshots"

_CATALOG_COLUMNS = "log_id, app_name, user_id, session_id, created_time, last_update_time, version, deleted, state"

_CREATE = [
    "CREATE TABLE IF NOT EXISTS chronicle_event_ids ("
    " log_id uuid NOT NULL, event_id text NOT NULL, version bigint NOT NULL,"
    " PRIMARY KEY (log_id, event_id))",
    "CREATE TABLE IF NOT EXISTS chronicle_sessions ("
    " log_id uuid PRIMARY KEY, app_name text NOT NULL, user_id text NOT NULL,"
    " session_id text NOT NULL, created_time double precision NOT NULL,"
    " last_update_time double precision NOT NULL, version bigint NOT NULL,"
    " deleted boolean NOT NULL DEFAULT false, state jsonb)",
    "CREATE INDEX IF NOT EXISTS chronicle_sessions_by_app"
    " ON chronicle_sessions (app_name, user_id, last_update_time)",
    "CREATE TABLE IF NOT EXISTS chronicle_scoped_state ("
    " app_name text NOT NULL, user_id text NOT NULL, key text NOT NULL, value jsonb,"
    " PRIMARY KEY (app_name, user_id, key))",
]


class PostgresLogRecorder(PostgresApplicationRecorder):
    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = EVENTS_TABLE):
        super().__init__(datastore, events_table_name=events_table_name)
        self.sql_create_statements.extend(SQL(s).format() for s in _CREATE)  # type: ignore[arg-type]

    def _insert_events(
        self, curs: Cursor[DictRow], stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> None:
        # Runs in the same transaction as the events, before them (pipelined).
        side: SideRows | None = kwargs.get("side")
        if not side:
            return
        if side.claims:
            curs.executemany(
                "INSERT INTO chronicle_event_ids VALUES (%s, %s, %s)", side.claims
            )
        row = side.catalog
        if row and side.catalog_is_new:
            curs.execute(
                f"INSERT INTO chronicle_sessions ({_CATALOG_COLUMNS}) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                (row.log_id, row.app_name, row.user_id, row.session_id, row.created_time,
                 row.last_update_time, row.version, row.deleted, json.dumps(row.state or {})),
            )
        elif row:
            curs.execute(
                "UPDATE chronicle_sessions SET last_update_time = %s, version = %s, deleted = %s,"
                " state = COALESCE(%s::jsonb, state) WHERE log_id = %s",
                (row.last_update_time, row.version, row.deleted,
                 None if row.state is None else json.dumps(row.state), row.log_id),
            )
        if side.scoped:
            curs.executemany(
                "INSERT INTO chronicle_scoped_state VALUES (%s, %s, %s, %s::jsonb)"
                " ON CONFLICT (app_name, user_id, key) DO UPDATE SET value = excluded.value",
                side.sorted_scoped(),
            )

    def find_claim(self, log_id: UUID, event_id: str) -> int | None:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(
                "SELECT version FROM chronicle_event_ids WHERE log_id = %s AND event_id = %s",
                (log_id, event_id),
            )
            row = curs.fetchone()
        return None if row is None else row["version"]

    def select_catalog(self, app_name: str, user_id: str | None) -> list[CatalogRow]:
        sql = f"SELECT {_CATALOG_COLUMNS} FROM chronicle_sessions WHERE app_name = %s AND NOT deleted"
        params: list[Any] = [app_name]
        if user_id is not None:
            sql += " AND user_id = %s"
            params.append(user_id)
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(sql + " ORDER BY last_update_time", params)
            rows = curs.fetchall()
        return [
            CatalogRow(r["log_id"], r["app_name"], r["user_id"], r["session_id"], r["created_time"],
                       r["last_update_time"], r["version"], r["deleted"], r["state"] or {})
            for r in rows
        ]

    def select_scoped(self, app_name: str, user_id: str) -> dict[str, Any]:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(
                "SELECT key, value FROM chronicle_scoped_state"
                " WHERE app_name = %s AND user_id IN ('', %s)",
                (app_name, user_id),
            )
            return {r["key"]: r["value"] for r in curs.fetchall()}


def parse_postgres_url(url: str) -> dict[str, Any]:
    parsed = urlparse(url)
    if parsed.scheme not in ("postgresql", "postgres") or not parsed.path.strip("/"):
        raise StoreError(f"Bad PostgreSQL URL {url!r}: use postgresql://user[:password]@host[:port]/dbname")
    return {
        "dbname": unquote(parsed.path.lstrip("/")),
        "host": parsed.hostname or "localhost",
        "port": parsed.port or 5432,
        "user": unquote(parsed.username or "postgres"),
        "password": unquote(parsed.password or ""),
    }


def open_postgres_store(url: str, *, pool_size: int = 4, max_overflow: int = 16) -> Store:
    try:
        datastore = PostgresDatastore(**parse_postgres_url(url), pool_size=pool_size, max_overflow=max_overflow)
        # Open once here: the library's lazy open races when many threads start at once.
        datastore.pool.open(wait=True, timeout=10)
        recorder = PostgresLogRecorder(datastore)
        recorder.create_table()
        snapshots = PostgresAggregateRecorder(datastore, events_table_name=SNAPSHOTS_TABLE)
        snapshots.create_table()
    except StoreError:
        raise
    except Exception as e:
        raise StoreError(f"Cannot open PostgreSQL store {url!r}: {e}") from e
    return Store(url, recorder, snapshots, threads=pool_size + max_overflow)
