"""The PostgreSQL store, shared by many processes: the reads PostgreSQL answers itself (binary
rows, prepared statements, pipelined round trips) and following the log by LISTEN/NOTIFY."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Iterable, Sequence
from uuid import UUID

from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresDatastore
import psycopg
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

from domain.errors import StoreError
from domain.session_log import RECORDED_TOPICS, SessionLog
from runtime.stores.base import LogBatch, LogRow, SnapshotParts, StateReads, Store, WindowRow, as_uuid
from runtime.stores.postgres.connect import parse_postgres_url
from runtime.stores.postgres.recorder import PostgresLogRecorder, PostgresSnapshotRecorder, _Datastore
from runtime.stores.postgres.errors import driver_error, missing_table
from runtime.stores.snapshots import decode_snapshot
from runtime.stores.catalog_sql import CATALOG_COLUMNS
from runtime.stores.postgres.catalog import catalog_rows
from runtime.stores.sql import log_batch_of

SNAPSHOTS_TABLE = "chronicle_snapshots"
_END = 2**63 - 1  # no upper bound

# The snapshot row comes whole, in binary: PostgreSQL's JSON functions are slower than
# decoding the payload here.
_SNAPSHOT = (
    "SELECT originator_version, state FROM {table}"
    " WHERE originator_id = %s AND originator_version <= %s ORDER BY originator_version DESC LIMIT 1"
)
# An event's timestamp, wherever its kind keeps it.
_TIMESTAMP = "COALESCE(j->'event'->>'timestamp', j->>'forked_time', j->>'deleted_time', j->>'created_time')"
# The last version at or before a time, by binary search inside the database, in one round
# trip: a timestamp picked out of one payload per step (14 steps for 10,000 events). The event
# at ``lo`` is at or before the time, the one at ``hi`` after it; ``hi`` starts past the log's
# last version. A missing timestamp counts as later. Also read: the log's genesis time (None
# when there is no such log).
_VERSION_AT_TIME = (
    "WITH RECURSIVE s(lo, hi) AS ("
    " SELECT 1::bigint, (SELECT max(originator_version) + 1 FROM {table} WHERE originator_id = %(id)s)"
    " UNION ALL"
    " SELECT CASE WHEN t.ts <= %(ts)s THEN m.mid ELSE s.lo END, CASE WHEN t.ts <= %(ts)s THEN s.hi ELSE m.mid END"
    " FROM s CROSS JOIN LATERAL (SELECT (s.lo + s.hi) / 2 AS mid) m LEFT JOIN LATERAL ("
    "  SELECT " + _TIMESTAMP + "::float8"
    "  AS ts FROM (SELECT convert_from(state, 'UTF8')::json AS j FROM {table}"
    "  WHERE originator_id = %(id)s AND originator_version = m.mid) e) t ON true"
    " WHERE s.hi - s.lo > 1)"
    " SELECT (SELECT lo FROM s WHERE hi - lo <= 1), (SELECT (convert_from(state, 'UTF8')::json->>'created_time')"
    "::float8 FROM {table} WHERE originator_id = %(id)s AND originator_version = 1)"
)


class PostgresStore(Store):
    # Fetching the next batch in another thread overlaps the server's work with folding.
    prefetches = True

    def __init__(self, url: str, recorder: PostgresLogRecorder, snapshots: PostgresAggregateRecorder, *, threads: int):
        super().__init__(url, recorder, snapshots, threads=threads)
        self.log_recorder = recorder
        self.snapshots = snapshots
        self.datastore: PostgresDatastore = recorder.datastore
        self.events_table = recorder.events_table_name

    def close(self) -> None:
        super().close()
        self.datastore.close()  # the pool's connections: the application's close leaves them open

    def typed_error(self, error: BaseException) -> StoreError | None:
        return driver_error(error) or super().typed_error(error)

    def missing_table(self, error: BaseException) -> bool:
        return missing_table(error)

    restore_hint = "restore the database from a backup (or a replica), then run `chronicle verify` again"

    def integrity_problems(self) -> list[str]:
        """Every row of Chronicle's tables read back whole (TOASTed values too: a damaged page
        fails the read), and, where the amcheck extension is installed, each of their B-tree
        indexes checked against its own invariants (``bt_index_check``)."""
        problems: list[str] = []
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            tables = [r[0] for r in curs.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE c.relkind = 'r' AND n.nspname = current_schema() AND c.relname LIKE 'chronicle%'"
                " ORDER BY c.relname")]
            amcheck = curs.execute("SELECT 1 FROM pg_extension WHERE extname = 'amcheck'").fetchone() is not None
            for table in tables:
                try:
                    curs.execute(SQL("SELECT count(*), sum(octet_length(t::text)) FROM {} t").format(Identifier(table)))
                except psycopg.Error as error:
                    conn.rollback()
                    problems.append(f"table {table}: {' '.join(str(error).split())}")
            indexes = [r[0] for r in curs.execute(
                "SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
                " JOIN pg_class t ON t.oid = x.indrelid JOIN pg_am a ON a.oid = i.relam"
                " JOIN pg_namespace n ON n.oid = t.relnamespace"
                " WHERE a.amname = 'btree' AND n.nspname = current_schema() AND t.relname LIKE 'chronicle%'"
                " ORDER BY i.relname")] if amcheck else []
            for index in indexes:
                try:
                    curs.execute("SELECT bt_index_check(%s::regclass)", (index,))
                except psycopg.Error as error:
                    conn.rollback()
                    problems.append(f"index {index}: {' '.join(str(error).split())}")
            conn.rollback()
        return problems

    # -- per-store objects ---------------------------------------------------------------

    def settle(self) -> None:
        with self.datastore.get_connection() as conn:
            conn.execute("CHECKPOINT")
            conn.execute("ANALYZE")

    def _make_projection_storage(self) -> Any:
        from runtime.stores.postgres.read_models import PostgresProjectionStorage

        return PostgresProjectionStorage(self.datastore)

    def _make_memory_index(self) -> Any:
        from runtime.stores.postgres.memory_index import PostgresMemoryIndex

        return PostgresMemoryIndex(self.log_recorder)

    def _make_blob_store(self) -> Any:
        from runtime.stores.postgres.blobs import PostgresBlobStore

        return PostgresBlobStore(self.datastore)

    def _make_credential_table(self) -> Any:
        from runtime.stores.postgres.credentials import PostgresCredentialTable

        return PostgresCredentialTable(self.datastore)

    def purge_statements(self) -> Any:
        from runtime.stores.postgres.purge import PostgresPurgeSql

        return PostgresPurgeSql(self)

    # -- raw reads -------------------------------------------------------------------------

    def _fetch(self, sql: str, params: Any, *, binary: bool = True) -> list[tuple[Any, ...]]:
        # Binary results: bytea comes as bytes (as text it would be hex, twice the bytes).
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            curs.execute(sql, params, prepare=True, binary=binary)
            return curs.fetchall()

    def log_rows(self, after: int, limit: int, upto: int | None) -> Sequence[LogRow]:
        return self._fetch(  # type: ignore[return-value]
            "SELECT notification_id, originator_id::text, originator_version, topic, state"
            f" FROM {self.events_table} WHERE notification_id > %s AND notification_id <= %s"
            " ORDER BY notification_id LIMIT %s",
            (after, _END if upto is None else upto, limit),
        )

    def fork_versions(self, raw_ids: Iterable[Any]) -> dict[Any, int]:
        ids = list(dict.fromkeys(raw_ids))
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            curs.execute(
                f"SELECT originator_id, originator_version FROM {self.events_table}"
                " WHERE originator_id = ANY(%s::uuid[]) AND topic = %s",
                ([str(x) for x in ids], SessionLog.ForkedFrom.TOPIC),
            )
            found = {r[0]: r[1] for r in curs.fetchall()}
        return {x: found[as_uuid(x)] for x in ids if as_uuid(x) in found}

    def window_rows(self, log_id: UUID, first: int, last: int) -> Sequence[WindowRow]:
        return self._fetch(  # type: ignore[return-value]
            f"SELECT notification_id, originator_version, topic, state FROM {self.events_table}"
            " WHERE originator_id = %s AND originator_version BETWEEN %s AND %s ORDER BY originator_version",
            (log_id, first, last),
        )

    def log_lengths(self, log_ids: Sequence[UUID]) -> dict[UUID, int]:
        rows = self._fetch(
            f"SELECT l.i, (SELECT max(originator_version) FROM {self.events_table} WHERE originator_id = l.id)"
            " FROM unnest(%s::uuid[]) WITH ORDINALITY AS l(id, i)", (list(log_ids),),
        )
        return {log_ids[i - 1]: version for i, version in rows if version is not None}

    def log_batch(self, log_ids: Sequence[UUID]) -> LogBatch:
        """The four reads pipelined: one round trip. Each is driven by the ids, an index scan per
        log (with ``= ANY`` and an ORDER BY, fresh statistics made the planner walk the whole
        index in order instead)."""
        ids = list(log_ids)
        per_log = "SELECT {columns} FROM unnest(%s::uuid[]) AS l(id) CROSS JOIN LATERAL (SELECT * FROM {table} t" \
                  " WHERE t.{key} = l.id{order}) r"
        log_rows = dict(columns="r.originator_id::text, r.originator_version, r.topic, r.state", key="originator_id",
                        order=" ORDER BY t.originator_version")
        reads = [per_log.format(table=self.events_table, **log_rows),
                 per_log.format(table=self.snapshots.events_table_name, **log_rows),
                 per_log.format(table="chronicle_event_ids", columns="r.log_id::text, r.event_id, r.version",
                                key="log_id", order=""),
                 per_log.format(table="chronicle_sessions", key="log_id", order="",
                                columns=", ".join(f"r.{c}" for c in CATALOG_COLUMNS.split(", ")))]
        with self.datastore.get_connection() as conn, conn.pipeline():
            cursors = [conn.cursor(row_factory=tuple_row) for _ in reads]
            for cursor, sql in zip(cursors, reads):
                cursor.execute(sql, (ids,), prepare=True, binary=True)
            events, snapshots, claims, catalog = (cursor.fetchall() for cursor in cursors)
        return log_batch_of(ids, events, snapshots, claims, catalog_rows(catalog), str)

    def locate_row(self, log_id: UUID, version: int) -> tuple[int, str, bytes] | None:
        rows = self._fetch(
            f"SELECT notification_id, topic, state FROM {self.events_table}"
            " WHERE originator_id = %s AND originator_version = %s",
            (log_id, version),
        )
        return rows[0] if rows else None  # type: ignore[return-value]

    def version_at_time(self, log_id: UUID, timestamp: float) -> tuple[int | None, float | None] | None:
        rows = self._fetch(
            _VERSION_AT_TIME.format(table=self.events_table), {"ts": timestamp, "id": log_id}, binary=False
        )
        row = rows[0] if rows else None
        if row is None or row[0] is None or row[1] is None:
            return None, None
        return int(row[0]), float(row[1])

    def timestamps(self, log_id: UUID, versions: Sequence[int]) -> dict[int, float] | None:
        rows = self._fetch(
            f"SELECT v, {_TIMESTAMP} FROM (SELECT originator_version AS v, convert_from(state, 'UTF8')::json AS j"
            f" FROM {self.events_table} WHERE originator_id = %s AND originator_version = ANY(%s)) s",
            (log_id, list(versions)),
            binary=False,
        )
        return {v: float(t) for v, t in rows if t is not None}

    def invocation_span(self, log_id: UUID, invocation_id: str) -> tuple[int, int] | None:
        rows = self._fetch(
            f"SELECT min(originator_version), max(originator_version) FROM {self.events_table}"
            " WHERE originator_id = %s AND topic = ANY(%s)"
            " AND convert_from(state, 'UTF8')::jsonb -> 'event' ->> 'invocation_id' = %s",
            (log_id, list(RECORDED_TOPICS), invocation_id), binary=False,
        )
        return (rows[0][0], rows[0][1]) if rows and rows[0][0] is not None else None

    def prune_snapshots(self, log_id: UUID, below: int, keep_every: int) -> None:
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(f"DELETE FROM {self.snapshots.events_table_name} WHERE originator_id = %s"
                         " AND originator_version < %s AND originator_version %% %s != 0",
                         (log_id, below, keep_every))

    def nearest_snapshot(self, log_id: UUID, version: int) -> SnapshotParts | None:
        rows = self._fetch(_SNAPSHOT.format(table=self.snapshots.events_table_name), (log_id, version))
        return decode_snapshot(self, StoredEvent(log_id, rows[0][0], "", rows[0][1])) if rows else None

    def state_reads(self, log_id: UUID, version: int, mode: str, reads: Sequence[tuple[str, str, str]]) -> StateReads:
        """The same reads as every store's, pipelined: one round trip."""
        storage = self.projection_storage()
        events = self.events_table
        snapshots = self.snapshots.events_table_name
        if mode == "latest":
            position_sql, position_params = f"SELECT max(notification_id) FROM {events}", []
        else:
            at = version + 1 if mode == "before" else version
            position_sql = (
                f"SELECT notification_id{' - 1' if mode == 'before' else ''} FROM {events}"
                " WHERE originator_id = %s AND originator_version = %s"
            )
            position_params = [log_id, at]
        read_sql, read_params = storage.read_at_query(position_sql, position_params, reads)  # type: ignore[attr-defined]
        with self.datastore.get_connection() as conn, conn.pipeline():
            snap = conn.cursor(row_factory=tuple_row)
            snap.execute(_SNAPSHOT.format(table=snapshots), (log_id, version), prepare=True, binary=True)
            rows = conn.cursor(row_factory=tuple_row)
            rows.execute(
                f"SELECT notification_id, originator_version, topic, state FROM {events}"
                " WHERE originator_id = %s AND originator_version BETWEEN LEAST(COALESCE(("
                f"  SELECT max(originator_version) FROM {snapshots} WHERE originator_id = %s"
                "  AND originator_version <= %s), 0) + 1, %s) AND %s ORDER BY originator_version",
                (log_id, log_id, version, version, version), binary=True, prepare=True,
            )
            shared = conn.cursor(row_factory=tuple_row)
            shared.execute(read_sql, read_params, prepare=True)
            snap_row, window_rows, shared_rows = snap.fetchone(), rows.fetchall(), shared.fetchall()
        snapshot = None
        if snap_row is not None:
            snapshot = decode_snapshot(self, StoredEvent(log_id, snap_row[0], "", snap_row[1]))
            if snapshot is None:  # refused: the window read began after it, so read it all again
                return super().state_reads(log_id, version, mode, reads)
        position, positions, views = storage.parse_read_at(shared_rows, reads)  # type: ignore[attr-defined]
        return snapshot, window_rows, position, positions, views  # type: ignore[return-value]

    # -- following the log ---------------------------------------------------------------

    def follow(self, catch_up: Callable[[], int], stop: threading.Event, poll_interval: float) -> None:
        """LISTENs on the events table's channel (every append NOTIFYs it)."""
        with self.datastore.get_connection() as conn:
            conn.execute(SQL("LISTEN {0}").format(Identifier(self.log_recorder.channel_name)))
            catch_up()
            last = time.monotonic()
            while not stop.is_set():
                notified = False
                for _ in conn.notifies(timeout=0.25, stop_after=1):
                    notified = True
                # Also look every second, in case a notification was missed.
                if notified or time.monotonic() - last > 1.0:
                    catch_up()
                    last = time.monotonic()


_SCHEMA_LOCK = 0x6368726F6E  # advisory lock key: one process creates the schema at a time
_SCHEMA_READY = (
    "SELECT to_regclass('chronicle_snapshots') IS NOT NULL"
    " AND to_regprocedure('chronicle_append_v2(uuid[], bigint[], text[], bytea[], jsonb)') IS NOT NULL"
    " AND to_regprocedure('chronicle_append_one(uuid, bigint, text, bytea, jsonb)') IS NOT NULL AS ready,"
    " current_setting('transaction_read_only') = 'on' AS read_only"  # (asked in the same round trip)
)


def _create_schema_once(
    datastore: PostgresDatastore, recorder: PostgresLogRecorder, snapshots: PostgresAggregateRecorder
) -> bool:
    """Create tables and the append function unless they exist. DDL takes locks that can
    deadlock with appends already running, so a store that is set up runs none. Returns
    whether this database refuses writes to us (a standby, ``default_transaction_read_only``):
    then reads and audits skip the tables they would otherwise create."""

    def ready() -> tuple[bool, bool]:
        with datastore.transaction(commit=False) as curs:
            curs.execute(_SCHEMA_READY)
            row = curs.fetchone()
            return bool(row["ready"]), bool(row["read_only"])  # type: ignore[index]

    is_ready, read_only = ready()
    if not is_ready:
        with datastore.get_connection() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (_SCHEMA_LOCK,))
            try:
                if not ready()[0]:
                    recorder.create_table()
                    snapshots.create_table()
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))
    return read_only


def open_postgres_store(url: str, *, pool_size: int = 4, max_overflow: int = 16) -> PostgresStore:
    try:
        # One connection is all a store needs to start: a cold read waits for no more, and
        # connections made meanwhile in the background (a server process forked for each)
        # slowed it by about a tenth here. The pool grows when callers wait, up to
        # pool_size + max_overflow, as SQLAlchemy's does, and shrinks back when they are idle.
        datastore = _Datastore(**parse_postgres_url(url), pool_size=1, max_overflow=pool_size + max_overflow - 1)
        # Open once here: the library's lazy open races when many threads start at once.
        datastore.pool.open(wait=True, timeout=10)
        recorder = PostgresLogRecorder(datastore)
        snapshots = PostgresSnapshotRecorder(datastore, events_table_name=SNAPSHOTS_TABLE)
        datastore.read_only = _create_schema_once(datastore, recorder, snapshots)
    except StoreError:
        raise
    except Exception as e:
        raise StoreError(f"Cannot open PostgreSQL store {url!r}: {e}") from e
    store = PostgresStore(url, recorder, snapshots, threads=pool_size + max_overflow)
    store.read_only = datastore.read_only
    return store
