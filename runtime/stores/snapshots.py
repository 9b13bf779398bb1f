"""A session log's nearest snapshot, read without building the aggregate.

Rewinds and time travel replay a log from its latest snapshot at or before a version. They
need only two parts of it, the session's state and its artifact view, while a snapshot holds
the whole aggregate (its invocation index grows with the session). SQLite extracts the two
parts itself (its JSON functions are quick C); PostgreSQL's are slower than decoding the
payload here, so its row comes whole, in binary.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder
from eventsourcing.sqlite import SQLiteAggregateRecorder
from pydantic_core import from_json

from domain.log import SessionLog
from runtime.stores.base import Store

# (version, {"state": ..., "artifacts": ...})
SnapshotParts = tuple[int, dict[str, Any]]

SNAPSHOT_PG = (
    "SELECT originator_version, state FROM {table}"
    " WHERE originator_id = %s AND originator_version <= %s ORDER BY originator_version DESC LIMIT 1"
)
_SNAPSHOT_PARTS_SQLITE = (
    "SELECT originator_version, json_extract(state, '$.class_version'), json_extract(state, '$.state.state'),"
    " json_extract(state, '$.state.artifacts') FROM {table}"
    " WHERE originator_id = ? AND originator_version <= ? ORDER BY originator_version DESC LIMIT 1"
)
_CLASS_VERSION = getattr(SessionLog.Snapshot, "class_version", 1)


def nearest_snapshot(store: Store, log_id: UUID, version: int) -> SnapshotParts | None:
    """The log's latest snapshot at or before ``version``, as its version and parts; None
    when there is none."""
    snapshots = store.application.snapshots
    if snapshots is None:
        return None
    recorder: Any = snapshots.recorder
    if isinstance(recorder, PostgresAggregateRecorder):
        from psycopg.rows import tuple_row

        with recorder.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            curs.execute(SNAPSHOT_PG.format(table=recorder.events_table_name), (log_id, version),
                         prepare=True, binary=True)
            row = curs.fetchone()
        return None if row is None else decode_snapshot(store, StoredEvent(log_id, row[0], "", row[1]))
    if isinstance(recorder, SQLiteAggregateRecorder):
        with recorder.datastore.transaction(commit=False) as c:
            c.execute(_SNAPSHOT_PARTS_SQLITE.format(table=recorder.events_table_name), (log_id.hex, version))
            row = c.fetchone()
        if row is None:
            return None
        at, class_version, state, artifacts = row
        if int(class_version or 1) != _CLASS_VERSION:
            # An old schema: let the application's mapper upcast the whole snapshot.
            return decode_snapshot(store, recorder.select_events(log_id, gt=at - 1, lte=at)[0])
        return at, {"state": from_json(state) if state else {}, "artifacts": from_json(artifacts) if artifacts else {}}
    rows = recorder.select_events(log_id, desc=True, limit=1, lte=version)
    return decode_snapshot(store, rows[0]) if rows else None


def decode_snapshot(store: Store, stored: StoredEvent) -> SnapshotParts:
    # json.loads, not from_json: a snapshot's invocation index has thousands of distinct keys,
    # where the key cache of pydantic's parser costs more than it saves.
    payload = json.loads(stored.state)
    if payload.get("class_version", 1) != _CLASS_VERSION:
        snapshot = store.application.mapper.to_domain_event(stored)
        return stored.originator_version, dict(snapshot.state)
    return stored.originator_version, payload["state"]
