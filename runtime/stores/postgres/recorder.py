"""The PostgreSQL store: eventsourcing's recorder on a psycopg 3 pool, shared by many processes."""

from __future__ import annotations

from typing import Any, Sequence
from uuid import UUID

from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import (
    ConnectionPool,
    PostgresAggregateRecorder,
    PostgresApplicationRecorder,
    PostgresDatastore,
)
import psycopg
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier
from pydantic_core import to_json

from runtime.stores.base import CatalogRow, Listing, ScopedReads, SideRows, scoped_by_user
from runtime.stores.postgres.catalog import catalog_query, catalog_rows
from runtime.stores.sql import RowReads, select_events_sql

EVENTS_TABLE = "chronicle_events"


_CREATE = [
    "CREATE TABLE IF NOT EXISTS chronicle_event_ids ("
    " log_id uuid NOT NULL, event_id text NOT NULL, version bigint NOT NULL,"
    " PRIMARY KEY (log_id, event_id))",
    "CREATE TABLE IF NOT EXISTS chronicle_sessions ("
    " log_id uuid PRIMARY KEY, app_name text NOT NULL, user_id text NOT NULL,"
    " session_id text NOT NULL, created_time double precision NOT NULL,"
    " last_update_time double precision NOT NULL, version bigint NOT NULL,"
    " deleted boolean NOT NULL DEFAULT false, state jsonb)"
    " WITH (fillfactor = 70)",  # room on the page, so the row's updates stay HOT
    # Not on last_update_time: every append changes it, and an indexed column makes
    # each update a new index entry (on PostgreSQL, index bloat on the hot row).
    "CREATE INDEX IF NOT EXISTS chronicle_sessions_by_user"
    " ON chronicle_sessions (app_name, user_id)",
    # A session named by its id alone (`chronicle history ID`): found without a scan.
    "CREATE INDEX IF NOT EXISTS chronicle_sessions_by_id ON chronicle_sessions (session_id)",
    "DROP INDEX IF EXISTS chronicle_sessions_by_app",  # the former index, on last_update_time
    "CREATE TABLE IF NOT EXISTS chronicle_scoped_state ("
    " app_name text NOT NULL, user_id text NOT NULL, key text NOT NULL, value jsonb,"
    " PRIMARY KEY (app_name, user_id, key))",
]


def _side_json(side: SideRows) -> str:
    # pydantic-core writes the UUIDs and catalog rows as they are, several times faster
    # than the json module.
    return to_json(
        {
            "claims": side.claims,
            "new_sessions": [vars(r) for r in side.new_sessions],
            "updated_sessions": [vars(r) for r in side.updated_sessions],
            "scoped": side.sorted_scoped(),
        }
    ).decode()


# Rows are written in a fixed order (sorted scoped keys) so concurrent appends cannot deadlock.
_APPEND_FUNCTION = """
CREATE OR REPLACE FUNCTION %(name)s(%(events)s, side jsonb)
RETURNS SETOF bigint LANGUAGE plpgsql AS $body$
BEGIN
  INSERT INTO chronicle_event_ids (log_id, event_id, version)
    SELECT (c->>0)::uuid, c->>1, (c->>2)::bigint FROM jsonb_array_elements(side->'claims') c;
  INSERT INTO chronicle_sessions (log_id, app_name, user_id, session_id, created_time,
                                  last_update_time, version, deleted, state)
    SELECT (r->>'log_id')::uuid, r->>'app_name', r->>'user_id', r->>'session_id',
           (r->>'created_time')::float8, (r->>'last_update_time')::float8, (r->>'version')::bigint,
           (r->>'deleted')::boolean, COALESCE(r->'state', '{}'::jsonb)
    FROM jsonb_array_elements(side->'new_sessions') r;
  UPDATE chronicle_sessions s
    SET last_update_time = (r->>'last_update_time')::float8, version = (r->>'version')::bigint,
        deleted = (r->>'deleted')::boolean,
        state = CASE WHEN jsonb_typeof(r->'state') = 'object' THEN r->'state' ELSE s.state END
    FROM jsonb_array_elements(side->'updated_sessions') r
    WHERE s.log_id = (r->>'log_id')::uuid;
  INSERT INTO chronicle_scoped_state (app_name, user_id, key, value)
    SELECT c->>0, c->>1, c->>2, c->3 FROM jsonb_array_elements(side->'scoped') c
    ON CONFLICT (app_name, user_id, key) DO UPDATE SET value = excluded.value;
  LOCK TABLE chronicle_events IN EXCLUSIVE MODE;
  NOTIFY chronicle_events;
  RETURN QUERY INSERT INTO chronicle_events (originator_id, originator_version, topic, state)
    %(rows)s
    RETURNING notification_id;
END
$body$
"""
# The same function twice: for a group of events, one array per column; for one event
# (a lone writer's every append), plain values, which cost about 120 µs less per call
# (psycopg dumps arrays in Python and the server parses them).
_APPEND_MANY = _APPEND_FUNCTION % {
    "name": "chronicle_append_v2",
    "events": "ids uuid[], versions bigint[], topics text[], states bytea[]",
    "rows": "SELECT * FROM unnest(ids, versions, topics, states)",
}
_APPEND_ONE = _APPEND_FUNCTION % {
    "name": "chronicle_append_one",
    "events": "originator uuid, at_version bigint, event_topic text, payload bytea",
    "rows": "VALUES (originator, at_version, event_topic, payload)",
}


class _WarmestFirstPool(ConnectionPool):
    """Hands out the connection returned last, not the one idle longest.

    psycopg's pool rotates through its idle connections, so a lone writer's every call
    lands on the server process that has waited longest, its caches cold: about 120 µs
    more per append, measured here against one connection reused. Taking the warmest
    first also leaves the spare connections idle, where the pool's own shrinking
    (which closes from the cold end) can retire them.
    """

    def _get_ready_connection(self, timeout: float | None) -> Any:
        # The pool takes from the front of its deque and returns to the back: bring the
        # back one to the front (under the pool's lock, as this is called).
        self._pool.rotate(1)
        return super()._get_ready_connection(timeout)


class _Datastore(PostgresDatastore):
    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        # The library builds its pool itself; this subclass only changes which idle
        # connection a checkout takes.
        self.pool.__class__ = _WarmestFirstPool

    def register_type_adapters(self) -> None:
        # The library's composite row type is used by no insert here (both recorders write
        # plain arrays): not reading its definition saves a round trip when a store opens.
        pass


class PostgresSnapshotRecorder(PostgresAggregateRecorder):
    """The snapshots' table, written with one plain array per column (as the log's appends are),
    not the library's composite row type."""

    def _insert_stored_events(self, curs: Any, stored_events: Sequence[StoredEvent], **_: Any) -> None:
        curs.execute(
            SQL("INSERT INTO {} (originator_id, originator_version, topic, state)"
                " SELECT * FROM unnest(%s::uuid[], %s::bigint[], %s::text[], %s::bytea[])").format(
                Identifier(self.datastore.schema, self.events_table_name)),
            ([e.originator_id for e in stored_events], [e.originator_version for e in stored_events],
             [e.topic for e in stored_events], [e.state for e in stored_events]),
        )


class PostgresLogRecorder(ScopedReads, RowReads, PostgresApplicationRecorder):
    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = EVENTS_TABLE):
        super().__init__(datastore, events_table_name=events_table_name)
        self.sql_create_statements.extend(SQL(s).format() for s in _CREATE)  # type: ignore[arg-type]

    def create_table(self) -> None:
        super().create_table()
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(_APPEND_MANY)
            curs.execute(_APPEND_ONE)

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        # One statement, so one round trip: the function writes the derived rows, takes
        # the table lock that keeps notification ids in commit order, notifies listeners
        # and inserts the events, all in the statement's own transaction.
        side = _side_json(kwargs.get("side") or SideRows())
        if len(stored_events) == 1:
            (e,) = stored_events
            sql = "SELECT chronicle_append_one(%s::uuid, %s::bigint, %s::text, %s::bytea, %s::jsonb)"
            params: tuple[Any, ...] = (e.originator_id, e.originator_version, e.topic, e.state, side)
        else:
            # One array per column: plain arrays adapt faster than the library's composite type.
            sql = "SELECT chronicle_append_v2(%s::uuid[], %s::bigint[], %s::text[], %s::bytea[], %s::jsonb)"
            params = (
                [e.originator_id for e in stored_events],
                [e.originator_version for e in stored_events],
                [e.topic for e in stored_events],
                [e.state for e in stored_events],
                side,
            )
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            curs.execute(sql, params, prepare=True)
            return [row[0] for row in curs.fetchall()]

    def select_rows(
        self, log_id: UUID, *, gt: int | None = None, lte: int | None = None, desc: bool = False,
        limit: int | None = None,
    ) -> list[tuple[int, str, bytes]]:
        sql, params = select_events_sql(self.events_table_name, "%s", log_id, gt, lte, desc, limit)
        # Binary results: bytea comes as bytes (as text it would be hex, twice the bytes to
        # send and decode).
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row, binary=True) as curs:
            curs.execute(sql, params, prepare=True)
            return curs.fetchall()  # type: ignore[return-value]

    def find_claim(self, log_id: UUID, event_id: str) -> int | None:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(
                "SELECT version FROM chronicle_event_ids WHERE log_id = %s AND event_id = %s",
                (log_id, event_id),
            )
            row = curs.fetchone()
        return None if row is None else row["version"]

    def select_claims(self, log_id: UUID, event_ids: Sequence[str] | None = None) -> dict[str, int]:
        sql, params = "SELECT event_id, version FROM chronicle_event_ids WHERE log_id = %s", [log_id]
        if event_ids is not None:
            sql += " AND event_id = ANY(%s)"
            params.append(list(event_ids))
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            # Planned for this log each time: a plan prepared for the average log (a few claims)
            # reads every claim of a long one, for each window verify checks.
            curs.execute(sql, params, prepare=False)
            return dict(curs.fetchall())

    def count_claims(self, log_id: UUID) -> int:
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            curs.execute("SELECT count(*) FROM chronicle_event_ids WHERE log_id = %s", (log_id,))
            return int(curs.fetchone()[0])  # type: ignore[index]

    def select_listing(self, app_name: str, user_id: str | None) -> list[Listing]:
        sql = (
            # state as text: the service decodes it faster than psycopg's json.loads per row
            "SELECT session_id, user_id, last_update_time, version, state::text FROM chronicle_sessions"
            " WHERE app_name = %s AND NOT deleted"
        )
        params: list[Any] = [app_name]
        if user_id is not None:
            sql += " AND user_id = %s"
            params.append(user_id)
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row, binary=True) as curs:
            curs.execute(sql + " ORDER BY last_update_time", params)
            return curs.fetchall()  # type: ignore[return-value]

    def select_catalog(
        self, app_name: str | None = None, user_id: str | None = None, *, log_id: UUID | None = None,
        session_id: str | None = None,
    ) -> list[CatalogRow]:
        """Every session (deleted ones too), for operators: filter by app, user and session id, or one by its log id."""
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            curs.execute(*catalog_query(app_name, user_id, log_id, session_id))
            return catalog_rows(curs.fetchall())

    def select_scoped_rows(self, app_name: str, user_id: str | None) -> dict[str, dict[str, Any]]:
        sql, params = "SELECT user_id, key, value FROM chronicle_scoped_state WHERE app_name = %s", [app_name]
        if user_id is not None:
            sql, params = sql + " AND user_id IN ('', %s)", [app_name, user_id]
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            curs.execute(sql, params, prepare=True)  # every get_session runs it
            return scoped_by_user(curs.fetchall())


def create_pg_tables(datastore: Any, statements: list[str]) -> None:
    """Runs CREATE … IF NOT EXISTS statements; two processes creating at once may collide
    on PostgreSQL's catalog, so a failed attempt is retried once the other has finished. A
    read-only database creates nothing (the tables are there, or reads find none)."""
    if getattr(datastore, "read_only", False):
        return
    for attempt in range(3):
        try:
            with datastore.transaction(commit=True) as c:
                c.execute("SELECT pg_advisory_xact_lock(7203311)")  # one creator at a time
                for statement in statements:
                    c.execute(statement)
            return
        except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateObject):
            if attempt == 2:
                raise
