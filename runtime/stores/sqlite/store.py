"""The embedded SQLite store: one file in WAL mode, and the reads that SQLite answers itself."""

from __future__ import annotations

import json
import os
import urllib.parse
from typing import Any, Iterable, Sequence
from uuid import UUID, uuid4

from eventsourcing.sqlite import SQLiteAggregateRecorder
from pydantic_core import from_json

from domain.errors import StoreError
from domain.session_log import RECORDED_TOPICS, SessionLog
from runtime.stores.base import LogBatch, LogRow, SnapshotParts, Store, WindowRow, as_uuid
from runtime.stores.sqlite.errors import driver_error, missing_table
from runtime.stores.sqlite.integrity import RESTORE_HINT, file_problems
from runtime.stores.catalog_sql import CATALOG_COLUMNS
from runtime.stores.sql import log_batch_of
from runtime.stores.sqlite.catalog import catalog_rows
from runtime.stores.snapshots import SNAPSHOT_CLASS_VERSION, checked_parts, decode_snapshot
from runtime.stores.sqlite.recorder import EVENTS_TABLE, SqliteLogRecorder, _Datastore
from runtime.stores.sqlite.files import directory, marked_read_only, not_writable, read_only_option, sqlite_path

SNAPSHOTS_TABLE = "chronicle_snapshots"
_END = 2**63 - 1  # no upper bound

# A snapshot's two parts that reads need, extracted by SQLite's JSON functions (quick C).
_SNAPSHOT_PARTS = (
    "SELECT originator_version, json_extract(state, '$.class_version'), json_extract(state, '$.state.state'),"
    " json_extract(state, '$.state.artifacts'), json_extract(state, '$.state.chain_head'),"
    " json_extract(state, '$.parts_digest') FROM {table}"
    " WHERE originator_id = ? AND originator_version <= ? ORDER BY originator_version DESC LIMIT 1"
)
# An event's timestamp, wherever its kind keeps it.
_TIMESTAMP = (
    "COALESCE(json_extract(state, '$.event.timestamp'), json_extract(state, '$.forked_time'),"
    " json_extract(state, '$.deleted_time'), json_extract(state, '$.created_time'))"
)
# The last version at or before a time, by binary search inside the database, in one call: a
# timestamp picked out of one payload per step. The event at ``lo`` is at or before the time,
# the one at ``hi`` after it; ``hi`` starts past the log's last version. A missing timestamp
# counts as later. Also read: the log's genesis time (None when there is no such log).
_TS_AT = "(SELECT " + _TIMESTAMP + " FROM {table} WHERE originator_id = :id AND originator_version = {version})"
_NEXT_MID = "((CASE WHEN ts <= :ts THEN mid ELSE lo END) + (CASE WHEN ts <= :ts THEN hi ELSE mid END)) / 2"
_VERSION_AT_TIME = (
    "WITH RECURSIVE s(lo, hi, mid, ts) AS ("
    " SELECT 1, h, (1 + h) / 2, {first_ts} FROM"
    " (SELECT max(originator_version) + 1 AS h FROM {table} WHERE originator_id = :id)"
    " UNION ALL"
    " SELECT CASE WHEN ts <= :ts THEN mid ELSE lo END, CASE WHEN ts <= :ts THEN hi ELSE mid END,"
    " {next_mid}, {next_ts} FROM s WHERE hi - lo > 1)"
    " SELECT (SELECT lo FROM s WHERE hi - lo <= 1), (SELECT json_extract(state, '$.created_time') FROM {table}"
    " WHERE originator_id = :id AND originator_version = 1)"
)


class SqliteStore(Store):
    # Fetching in another thread does not pay here: SQLite gives up the interpreter's lock for
    # every row it steps to, so a fetching thread mostly waits for it and slows the folding one.
    prefetches = False

    def __init__(
        self, url: str, recorder: SqliteLogRecorder, snapshots: SQLiteAggregateRecorder, *, read_only: bool = False
    ):
        super().__init__(url, recorder, snapshots, threads=2)
        self.read_only = read_only
        self.log_recorder = recorder
        self.snapshots = snapshots
        self.datastore: _Datastore = recorder.datastore  # type: ignore[assignment]
        self.events_table = recorder.events_table_name

    def close(self) -> None:
        blobs = self._owned.get("blob store")
        if blobs is not None:
            blobs.close()
        super().close()
        # Closed here, not when the last reference goes: a closed store's file is then whole
        # (its WAL checked in), whatever still holds the store object.
        self.datastore.close()

    def typed_error(self, error: BaseException) -> StoreError | None:
        return driver_error(error) or super().typed_error(error)

    def missing_table(self, error: BaseException) -> bool:
        return missing_table(error)

    restore_hint = RESTORE_HINT

    def integrity_problems(self) -> list[str]:
        from runtime.stores.sqlite.blobs import sidecar_path

        pool = self.datastore.pool
        return [] if pool.is_sqlite_memory_mode else file_problems(sidecar_path(pool.db_name)[: -len("-blobs")])

    # -- per-store objects ---------------------------------------------------------------

    def settle(self) -> None:
        with self.datastore.transaction(commit=False) as c, c as raw:
            raw.execute("ROLLBACK")  # a checkpoint needs no open transaction on this connection
            raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            raw.execute("BEGIN")

    def _make_projection_storage(self) -> Any:
        from runtime.stores.sqlite.read_models import SqliteProjectionStorage

        return SqliteProjectionStorage(self.datastore)

    def _make_memory_index(self) -> Any:
        from runtime.stores.sqlite.memory_index import SqliteMemoryIndex

        return SqliteMemoryIndex(self.log_recorder)

    def _make_blob_store(self) -> Any:
        from runtime.stores.sqlite.blobs import SqliteBlobStore

        return SqliteBlobStore(self.datastore)

    def _make_credential_table(self) -> Any:
        from runtime.stores.sqlite.credentials import SqliteCredentialTable

        return SqliteCredentialTable(self.datastore)

    def purge_statements(self) -> Any:
        from runtime.stores.sqlite.purge import SqlitePurgeSql

        return SqlitePurgeSql(self)

    # -- raw reads -------------------------------------------------------------------------

    def _fetch(self, sql: str, params: Any) -> list[tuple[Any, ...]]:
        """Rows as plain tuples (a Row object per row costs more than folding it)."""
        with self.datastore.transaction(commit=False) as c, c as raw:
            raw.row_factory = None
            raw.execute(sql, params)
            return raw.fetchall()

    def log_rows(self, after: int, limit: int, upto: int | None) -> Sequence[LogRow]:
        return self._fetch(
            f"SELECT rowid, originator_id, originator_version, topic, state FROM {self.events_table}"
            " WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?",
            (after, _END if upto is None else upto, limit),
        )

    def fork_versions(self, raw_ids: Iterable[Any]) -> dict[Any, int]:
        ids = list(dict.fromkeys(raw_ids))
        out: dict[Any, int] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            found = dict(self._fetch(
                f"SELECT originator_id, originator_version FROM {self.events_table}"
                f" WHERE originator_id IN ({','.join('?' * len(chunk))}) AND topic = ?",
                [as_uuid(x).hex for x in chunk] + [SessionLog.ForkedFrom.TOPIC],
            ))
            out.update({x: found[as_uuid(x).hex] for x in chunk if as_uuid(x).hex in found})
        return out

    def window_rows(self, log_id: UUID, first: int, last: int) -> Sequence[WindowRow]:
        return self._fetch(
            f"SELECT rowid, originator_version, topic, state FROM {self.events_table}"
            " WHERE originator_id = ? AND originator_version BETWEEN ? AND ? ORDER BY originator_version",
            (log_id.hex, first, last),
        )

    def log_lengths(self, log_ids: Sequence[UUID]) -> dict[UUID, int]:
        rows = self._fetch(
            f"SELECT key, (SELECT max(originator_version) FROM {self.events_table} WHERE originator_id = value)"
            " FROM json_each(?)", (json.dumps([log_id.hex for log_id in log_ids]),),
        )
        return {log_ids[i]: version for i, version in rows if version is not None}

    def log_batch(self, log_ids: Sequence[UUID]) -> LogBatch:
        ids = json.dumps([log_id.hex for log_id in log_ids])
        where = " WHERE originator_id IN (SELECT value FROM json_each(?)) ORDER BY originator_id, originator_version"
        columns = "SELECT originator_id, originator_version, topic, state FROM "
        with self.datastore.transaction(commit=False) as c, c as raw:  # one read transaction: one state of the store
            raw.row_factory = None
            events = raw.execute(columns + self.events_table + where, (ids,)).fetchall()
            snapshots = raw.execute(columns + self.snapshots.events_table_name + where, (ids,)).fetchall()
            claims = raw.execute("SELECT log_id, event_id, version FROM chronicle_event_ids"
                                 " WHERE log_id IN (SELECT value FROM json_each(?))", (ids,)).fetchall()
            catalog = raw.execute(f"SELECT {CATALOG_COLUMNS} FROM chronicle_sessions"
                                  " WHERE log_id IN (SELECT value FROM json_each(?))", (ids,)).fetchall()
        return log_batch_of(log_ids, events, snapshots, claims, catalog_rows(catalog), lambda log_id: log_id.hex)

    def locate_row(self, log_id: UUID, version: int) -> tuple[int, str, bytes] | None:
        rows = self._fetch(
            f"SELECT rowid, topic, state FROM {self.events_table} WHERE originator_id = ? AND originator_version = ?",
            (log_id.hex, version),
        )
        return rows[0] if rows else None  # type: ignore[return-value]

    def version_at_time(self, log_id: UUID, timestamp: float) -> tuple[int | None, float | None] | None:
        table = self.events_table
        sql = _VERSION_AT_TIME.format(
            table=table,
            first_ts=_TS_AT.format(table=table, version="(1 + h) / 2"),
            next_mid=_NEXT_MID,
            next_ts=_TS_AT.format(table=table, version=_NEXT_MID),
        )
        rows = self._fetch(sql, {"ts": timestamp, "id": log_id.hex})
        row = rows[0] if rows else None
        if row is None or row[0] is None or row[1] is None:
            return None, None
        return int(row[0]), float(row[1])

    def timestamps(self, log_id: UUID, versions: Sequence[int]) -> dict[int, float] | None:
        found = dict(self._fetch(
            f"SELECT originator_version, {_TIMESTAMP} FROM {self.events_table}"
            f" WHERE originator_id = ? AND originator_version IN ({','.join('?' * len(versions))})",
            (log_id.hex, *versions),
        ))
        return {v: t for v, t in found.items() if t is not None}

    def invocation_span(self, log_id: UUID, invocation_id: str) -> tuple[int, int] | None:
        rows = self._fetch(
            f"SELECT min(originator_version), max(originator_version) FROM {self.events_table}"
            " WHERE originator_id = ? AND topic IN (?, ?) AND json_extract(state, '$.event.invocation_id') = ?",
            (log_id.hex, *RECORDED_TOPICS, invocation_id),
        )
        return (rows[0][0], rows[0][1]) if rows and rows[0][0] is not None else None

    def prune_snapshots(self, log_id: UUID, below: int, keep_every: int) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute(f"DELETE FROM {self.snapshots.events_table_name} WHERE originator_id = ?"
                      " AND originator_version < ? AND originator_version % ? != 0",
                      (log_id.hex, below, keep_every))

    def nearest_snapshot(self, log_id: UUID, version: int) -> SnapshotParts | None:
        table = self.snapshots.events_table_name
        with self.datastore.transaction(commit=False) as c:
            c.execute(_SNAPSHOT_PARTS.format(table=table), (log_id.hex, version))
            row = c.fetchone()
        if row is None:
            return None
        at, class_version, state, artifacts, chain_head, digest = row
        if int(class_version or 1) != SNAPSHOT_CLASS_VERSION:
            # An old schema: let the application's mapper upcast the whole snapshot.
            return decode_snapshot(self, self.snapshots.select_events(log_id, gt=at - 1, lte=at)[0])
        parts = {"state": from_json(state) if state else {}, "artifacts": from_json(artifacts) if artifacts else {},
                 "chain_head": chain_head}
        return checked_parts(self, log_id, at, parts, digest)


def open_sqlite_store(url_or_path: str) -> SqliteStore:
    path, read_only = read_only_option(sqlite_path(url_or_path))
    read_only = read_only or (path != ":memory:" and not_writable(path))
    url = url_or_path if url_or_path.startswith("sqlite:") else f"sqlite:///{path}"
    if read_only:
        return _open_read_only(url, path)
    # A private in-memory database must be shared by the pool's connections.
    db_name = f"file:chronicle-{uuid4().hex}?mode=memory&cache=shared" if path == ":memory:" else path
    try:
        datastore = _Datastore(db_name, lock_timeout=30, pool_size=4)
        recorder = SqliteLogRecorder(datastore, events_table_name=EVENTS_TABLE)
        recorder.create_table()
        snapshots = SQLiteAggregateRecorder(datastore, events_table_name=SNAPSHOTS_TABLE)
        snapshots.create_table()
    except Exception as e:  # sqlite3 or eventsourcing errors: say which file and why
        raise StoreError(f"Cannot open SQLite store {path!r}: {e}") from e
    return SqliteStore(url, recorder, snapshots)


def _open_read_only(url: str, path: str) -> SqliteStore:
    """The store file opened read-only: no schema is created, nothing is written. SQLite reads a
    WAL-mode file read-only only where it can make the -shm file beside it; in a read-only
    directory it reads the file as immutable (a copy nobody writes, which is what is audited)."""
    if not os.path.exists(path):
        raise StoreError(f"Cannot open SQLite store {path!r} read-only: the file does not exist.")
    location = urllib.parse.quote(os.path.abspath(path))
    error: Exception | None = None
    # In a directory that is not to be written, nobody can be writing a WAL-mode file: read it
    # as immutable straight away (mode=ro would make the -shm file there, where it can).
    modes = ("immutable=1",) if marked_read_only(directory(path)) else ("mode=ro", "immutable=1")
    for mode in modes:
        datastore = _Datastore(f"file:{location}?{mode}", lock_timeout=30, pool_size=4, read_only=True)
        try:
            with datastore.transaction(commit=False) as c:
                c.execute("SELECT count(*) FROM sqlite_master")
        except Exception as e:  # noqa: BLE001 - try the next way, report the last
            datastore.close()
            error = e
            continue
        recorder = SqliteLogRecorder(datastore, events_table_name=EVENTS_TABLE)
        snapshots = SQLiteAggregateRecorder(datastore, events_table_name=SNAPSHOTS_TABLE)
        return SqliteStore(url, recorder, snapshots, read_only=True)
    raise StoreError(f"Cannot open SQLite store {path!r} read-only: {error}") from error

