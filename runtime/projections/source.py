"""The store's log as folds see it: stored events in log order, decoded into ``LogEvent``s.

Reads go through the store's eventsourcing recorder (``select_notifications`` for the whole
log in order, ``select_events`` for one session). Payloads are decoded straight from their
JSON — the fast path, used whenever the stored schema version is the current one; an event
stored under an older schema version goes through the application's mapper, which upcasts it.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence
from uuid import UUID

from eventsourcing.persistence import Notification, StoredEvent
from eventsourcing.popo import POPOApplicationRecorder
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder
from pydantic_core import from_json

from domain.log import SessionLog
from projections.log import CREATED, DELETED, RECORDED, LogEvent
from runtime.stores import Store

_KINDS = {
    SessionLog.Created.TOPIC: (CREATED, SessionLog.Created),
    SessionLog.Recorded.TOPIC: (RECORDED, SessionLog.Recorded),
    SessionLog.Deleted.TOPIC: (DELETED, SessionLog.Deleted),
}
TOPICS = tuple(_KINDS)

Identity = tuple[str, str, str]  # app, user, session id


class LogSource:
    """Reads and decodes one store's session logs."""

    def __init__(self, store: Store, *, max_identities: int = 200_000):
        self.store = store
        self.recorder = store.recorder
        self._identities: dict[Any, _Known] = {}
        self._max_identities = max_identities
        self._lock = threading.Lock()

    # -- the whole log ----------------------------------------------------------------

    def read(self, after: int, limit: int) -> tuple[list[LogEvent], int]:
        """Events with positions after ``after`` (at most ``limit`` stored events read), and
        the position of the last stored event read (``after`` when there was none)."""
        rows = self._select_rows(after, limit)
        if not rows:
            return [], after
        decode = self._decode_row
        events = [e for e in (decode(*row) for row in rows) if e is not None]
        return events, rows[-1][0]

    def _select_rows(self, after: int, limit: int) -> Sequence[tuple[Any, ...]]:
        """(position, log id, version, topic, payload) rows, read the fastest way the store allows.

        eventsourcing's ``select_notifications`` builds a Notification (and a UUID) per row,
        which costs more than folding it; reading plain tuples keeps rebuilds fast.
        """
        recorder = self.recorder
        if isinstance(recorder, SQLiteApplicationRecorder):
            with recorder.datastore.transaction(commit=False) as c, c as raw:
                raw.row_factory = None
                raw.execute(
                    f"SELECT rowid, originator_id, originator_version, topic, state FROM {recorder.events_table_name}"
                    " WHERE rowid > ? ORDER BY rowid LIMIT ?",
                    (after, limit),
                )
                return raw.fetchall()
        if isinstance(recorder, PostgresApplicationRecorder):
            from psycopg.rows import tuple_row

            with recorder.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
                curs.execute(
                    "SELECT notification_id, originator_id::text, originator_version, topic, state"
                    f" FROM {recorder.events_table_name} WHERE notification_id > %s ORDER BY notification_id LIMIT %s",
                    (after, limit),
                    prepare=True,
                )
                return curs.fetchall()
        notifications = recorder.select_notifications(start=after, limit=limit, inclusive_of_start=False)
        return [(n.id, n.originator_id, n.originator_version, n.topic, n.state) for n in notifications]

    def max_position(self) -> int:
        return self.recorder.max_notification_id() or 0

    # -- one session ------------------------------------------------------------------

    def session_events(self, log_id: UUID, *, gt: int | None = None, lte: int | None = None) -> list[LogEvent]:
        """One session's events in order (positions left 0: a session read does not know them)."""
        rows = self.recorder.select_events(log_id, gt=gt, lte=lte)
        return [e for e in (self.decode(r) for r in rows) if e is not None]

    def event_at(self, log_id: UUID, version: int) -> LogEvent | None:
        rows = self.recorder.select_events(log_id, gt=version - 1, lte=version)
        return self.decode(rows[0]) if rows else None

    def locate(self, log_id: UUID, version: int) -> tuple[int, LogEvent | None]:
        """The log position of a session's event at ``version``, and the event (one read)."""
        recorder = self.recorder
        row: Any = None
        if isinstance(recorder, PostgresApplicationRecorder):
            from psycopg.rows import tuple_row

            with recorder.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
                curs.execute(
                    f"SELECT notification_id, topic, state FROM {recorder.events_table_name}"
                    " WHERE originator_id = %s AND originator_version = %s",
                    (log_id, version),
                    prepare=True,
                )
                row = curs.fetchone()
        elif isinstance(recorder, SQLiteApplicationRecorder):
            with recorder.datastore.transaction(commit=False) as c:
                c.execute(
                    f"SELECT rowid, topic, state FROM {recorder.events_table_name}"
                    " WHERE originator_id = ? AND originator_version = ?",
                    (log_id.hex, version),
                )
                found = c.fetchone()
                row = tuple(found) if found else None
        else:
            position = self.position_of(log_id, version)
            event = self.event_at(log_id, version)
            return position, event
        if row is None:
            return 0, None
        return row[0], self._decode_row(row[0], log_id, version, row[1], row[2])

    def position_of(self, log_id: UUID, version: int) -> int:
        """The log position (notification id) of a session's event at ``version``."""
        recorder = self.recorder
        if isinstance(recorder, PostgresApplicationRecorder):
            with recorder.datastore.get_connection() as conn, conn.cursor() as curs:
                curs.execute(
                    f"SELECT notification_id FROM {recorder.events_table_name}"
                    " WHERE originator_id = %s AND originator_version = %s",
                    (log_id, version),
                    prepare=True,
                )
                row = curs.fetchone()
                return row["notification_id"] if row else 0
        if isinstance(recorder, SQLiteApplicationRecorder):
            with recorder.datastore.transaction(commit=False) as c:
                c.execute(
                    f"SELECT rowid FROM {recorder.events_table_name} WHERE originator_id = ? AND originator_version = ?",
                    (log_id.hex, version),
                )
                row = c.fetchone()
                return row[0] if row else 0
        if isinstance(recorder, POPOApplicationRecorder):
            with recorder._database_lock:  # noqa: SLF001 - the in-memory log has no query language
                index = recorder._stored_events_index.get(str(log_id), {})  # noqa: SLF001
                return index[version] + 1 if version in index else 0
        raise TypeError(f"Cannot locate events in a {type(recorder).__name__}")

    # -- decoding ---------------------------------------------------------------------

    def decode(self, stored: StoredEvent | Notification, position: int = 0) -> LogEvent | None:
        """A stored event as a ``LogEvent`` (None for events that are not a session log's)."""
        return self._decode_row(position, stored.originator_id, stored.originator_version, stored.topic, stored.state)

    def _decode_row(self, position: int, raw_id: Any, version: int, topic: str, state: bytes) -> LogEvent | None:
        kind_class = _KINDS.get(topic)
        if kind_class is None:
            return None
        kind, cls = kind_class
        payload = from_json(state)
        if payload.get("class_version", 1) != getattr(cls, "class_version", 1):
            payload = self._upcast(raw_id, version, topic, state)
        if kind == RECORDED:
            known = self._identities.get(raw_id) or self._lookup(raw_id)
            data = payload["event"]
            return LogEvent(RECORDED, known[0], known[1], known[2], version, data["timestamp"], data, position, known[3])
        if kind == CREATED:
            known = self._remember(raw_id, payload["app_name"], payload["user_id"], payload["session_id"])
            return LogEvent(
                CREATED, known[0], known[1], known[2], version, payload["created_time"],
                {"state": payload["state"]}, position, known[3],
            )
        known = self._identities.get(raw_id) or self._lookup(raw_id)
        return LogEvent(DELETED, known[0], known[1], known[2], version, payload["deleted_time"], {}, position, known[3])

    def _upcast(self, raw_id: Any, version: int, topic: str, state: bytes) -> dict[str, Any]:
        stored = StoredEvent(_as_uuid(raw_id), version, topic, state)
        domain_event = self.store.application.mapper.to_domain_event(stored)
        return dict(vars(domain_event))

    def identity(self, log_id: UUID) -> Identity:
        """(app, user, session id) of a session log."""
        known = self._identities.get(log_id) or self._lookup(log_id)
        return known[0], known[1], known[2]

    def _lookup(self, raw_id: Any) -> _Known:
        log_id = _as_uuid(raw_id)
        rows: Sequence[StoredEvent] = self.recorder.select_events(log_id, lte=1)
        if not rows or rows[0].topic != SessionLog.Created.TOPIC:
            raise LookupError(f"Log {log_id} has no genesis event; is it a session log?")
        payload = from_json(rows[0].state)
        return self._remember(raw_id, payload["app_name"], payload["user_id"], payload["session_id"])

    def _remember(self, raw_id: Any, app_name: str, user_id: str, session_id: str) -> _Known:
        known = (app_name, user_id, session_id, _as_uuid(raw_id))
        with self._lock:
            if len(self._identities) >= self._max_identities:
                self._identities.clear()  # cheap to rebuild: one read per session seen again
            # Rows name a log by UUID, by its text or by its hex, depending on the store.
            self._identities[raw_id] = known
            self._identities[known[3]] = known
        return known


_Known = tuple[str, str, str, UUID]


def _as_uuid(raw_id: Any) -> UUID:
    return raw_id if isinstance(raw_id, UUID) else UUID(str(raw_id))
