"""The store's log as folds see it: stored events in log order, decoded into ``LogEvent``s.

Rows are read with plain SQL on the store's events table (eventsourcing's
``select_notifications`` builds a Notification and a UUID per row, which costs more than
folding it) and decoded straight from their JSON — the fast path, used whenever the stored
schema version is the current one; an event stored under an older schema version goes through
the application's mapper, which upcasts it.

A fork's log starts with copies of its source's events (recorded in the same transaction as
the fork's genesis and its ``ForkedFrom`` event). The source marks them ``copied``, so folds of
shared state and analytics can skip them: the first time it meets a session it asks the store
whether the session is a fork, and up to which version.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Iterable, Sequence
from uuid import UUID

from eventsourcing.persistence import Notification, StoredEvent
from eventsourcing.popo import POPOApplicationRecorder
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder
from pydantic_core import from_json as _from_json

from domain.log import SessionLog
from projections.log import CREATED, DELETED, FORKED, RECORDED, REWOUND, LogEvent
from runtime.stores import Store

def from_json(data: bytes) -> Any:
    # Rust's JSON parser (pydantic's), with dict keys interned: several times json.loads's speed.
    return _from_json(data, cache_strings="keys")


log = logging.getLogger("chronicle.projections")

_KINDS: dict[str, tuple[str, type]] = {
    SessionLog.Created.TOPIC: (CREATED, SessionLog.Created),
    SessionLog.Recorded.TOPIC: (RECORDED, SessionLog.Recorded),
    SessionLog.Rewound.TOPIC: (REWOUND, SessionLog.Rewound),
    SessionLog.ForkedFrom.TOPIC: (FORKED, SessionLog.ForkedFrom),
    SessionLog.Deleted.TOPIC: (DELETED, SessionLog.Deleted),
}
TOPICS = tuple(_KINDS)
_END = 2**63 - 1  # no upper bound
_FORKED_TOPIC = SessionLog.ForkedFrom.TOPIC
_CREATED_TOPIC = SessionLog.Created.TOPIC
_REWOUND_META = ("start_version", "restored_state", "restored_artifacts")
_FORKED_META = ("source_session_id", "source_log_id", "source_version", "before_invocation_id", "forked_time")

Identity = tuple[str, str, str]  # app, user, session id
# What the source knows of a log: app, user, session id, its UUID, the version of its
# ForkedFrom event when it is a fork whose copies have not all been read yet (else 0), and
# its session and user keys (``LogEvent.session_key``, ``user_key``).
_Known = list[Any]

_RECORDED_TOPIC = SessionLog.Recorded.TOPIC
_RECORDED_TAIL = b',"class_version":%d}' % getattr(SessionLog.Recorded, "class_version", 1)


def _recorded_event(state: bytes) -> dict[str, Any] | None:
    """The ADK event of a current ``Recorded`` payload, decoding that part of it only (or None:
    then decode the whole payload).

    A payload is ``{"timestamp": …, "digest": …, "chain": …, "event": {…}, "class_version": N}``:
    the event is most of it, and the rest is not needed here. The text between the first
    ``,"event":`` and a final ``,"class_version":N}`` (N current) is exactly the event whenever it
    parses: an unescaped quote cannot occur inside a JSON string, so those markers are
    structural; a first ``"event"`` key nested deeper, or another key after the event, would
    leave unbalanced brackets or a stray member in the slice, which does not parse.
    """
    if not state.endswith(_RECORDED_TAIL):
        return None
    start = state.find(b',"event":')
    if start < 0:
        return None
    try:
        data = _from_json(state[start + 9 : len(state) - len(_RECORDED_TAIL)], cache_strings="keys")
    except ValueError:
        return None
    return data if type(data) is dict else None


class LogSource:
    """Reads and decodes one store's session logs."""

    def __init__(self, store: Store, *, max_identities: int = 200_000):
        self.store = store
        self.recorder = store.recorder
        self._known: dict[Any, _Known] = {}
        self._max_identities = max_identities
        self._lock = threading.Lock()
        # Fetching in another thread overlaps the database server's work with folding. Only
        # PostgreSQL's: SQLite gives up the interpreter's lock for every row it steps to, so a
        # fetching thread mostly waits for it and slows the folding one (measured).
        self.prefetches = isinstance(self.recorder, PostgresApplicationRecorder)

    # -- the whole log ----------------------------------------------------------------

    def read(self, after: int, limit: int, upto: int | None = None) -> tuple[list[LogEvent], int]:
        """Events with positions after ``after`` (and at most ``upto``; at most ``limit`` stored
        events read), and the position of the last one read (``after`` when there was none)."""
        return self.decode_rows(*self.fetch(after, limit, upto), after=after)

    # ``read`` in two steps, so that a runner can fetch the next batch (I/O, in another thread)
    # while it folds this one: ``fetch`` touches nothing but the database; ``decode_rows`` must
    # see the batches in log order (it learns each session's identity from its genesis).

    def fetch(self, after: int, limit: int, upto: int | None = None) -> tuple[Sequence[tuple[Any, ...]], dict[Any, int]]:
        """The stored rows after ``after`` (see ``read``), and the ForkedFrom versions of the
        sessions created among them that are forks (one query per batch)."""
        rows = self._select_rows(after, limit, upto)
        created = [r[1] for r in rows if r[3] == _CREATED_TOPIC]
        return rows, (self._fork_versions(created) if created else {})

    def decode_rows(
        self, rows: Sequence[tuple[Any, ...]], forks: dict[Any, int], *, after: int = 0
    ) -> tuple[list[LogEvent], int]:
        """``fetch``'s rows as events, and the position of the last row (``after`` if none)."""
        if not rows:
            return [], after
        decode = self._decode_row
        known_get = self._known.get
        events: list[LogEvent] = []
        append = events.append
        for position, raw_id, version, topic, state in rows:
            # The common case first: an ADK event of a session already met, its payload current.
            if topic == _RECORDED_TOPIC:
                known = known_get(raw_id)
                if known is not None:
                    data = _recorded_event(state)
                    if data is not None:
                        append(LogEvent(
                            RECORDED, known[0], known[1], known[2], version, data.get("timestamp", 0.0), data,
                            position, known[3], {}, version < known[4], None, known[5], known[6],
                        ))
                        continue
            event = decode(position, raw_id, version, topic, state, forks)
            if event is not None:
                append(event)
        return events, rows[-1][0]

    def max_position(self) -> int:
        return self.recorder.max_notification_id() or 0

    def _select_rows(self, after: int, limit: int, upto: int | None = None) -> Sequence[tuple[Any, ...]]:
        """(position, log id, version, topic, payload) rows, read the fastest way the store allows."""
        recorder = self.recorder
        if isinstance(recorder, SQLiteApplicationRecorder):
            with recorder.datastore.transaction(commit=False) as c, c as raw:
                raw.row_factory = None
                raw.execute(
                    f"SELECT rowid, originator_id, originator_version, topic, state FROM {recorder.events_table_name}"
                    " WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?",
                    (after, _END if upto is None else upto, limit),
                )
                return raw.fetchall()
        if isinstance(recorder, PostgresApplicationRecorder):
            from psycopg.rows import tuple_row

            with recorder.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
                curs.execute(
                    "SELECT notification_id, originator_id::text, originator_version, topic, state"
                    f" FROM {recorder.events_table_name} WHERE notification_id > %s AND notification_id <= %s"
                    " ORDER BY notification_id LIMIT %s",
                    (after, _END if upto is None else upto, limit),
                    prepare=True,
                    binary=True,  # bytea as bytes, not hex text: half the cost per row
                )
                return curs.fetchall()
        notifications = recorder.select_notifications(start=after, limit=limit, stop=upto, inclusive_of_start=False)
        return [(n.id, n.originator_id, n.originator_version, n.topic, n.state) for n in notifications]

    def _fork_versions(self, raw_ids: Iterable[Any]) -> dict[Any, int]:
        """{log id: version of its ForkedFrom event} for those logs that are forks."""
        ids = list(dict.fromkeys(raw_ids))
        recorder = self.recorder
        if isinstance(recorder, SQLiteApplicationRecorder):
            out: dict[Any, int] = {}
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                with recorder.datastore.transaction(commit=False) as c:
                    c.execute(
                        f"SELECT originator_id, originator_version FROM {recorder.events_table_name}"
                        f" WHERE originator_id IN ({','.join('?' * len(chunk))}) AND topic = ?",
                        [_as_uuid(x).hex for x in chunk] + [_FORKED_TOPIC],
                    )
                    found = {r[0]: r[1] for r in c.fetchall()}
                out.update({x: found[_as_uuid(x).hex] for x in chunk if _as_uuid(x).hex in found})
            return out
        if isinstance(recorder, PostgresApplicationRecorder):
            from psycopg.rows import tuple_row

            with recorder.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
                curs.execute(
                    f"SELECT originator_id, originator_version FROM {recorder.events_table_name}"
                    " WHERE originator_id = ANY(%s::uuid[]) AND topic = %s",
                    ([str(x) for x in ids], _FORKED_TOPIC),
                )
                found = {r[0]: r[1] for r in curs.fetchall()}
            return {x: found[_as_uuid(x)] for x in ids if _as_uuid(x) in found}
        out = {}
        for x in ids:
            for stored in recorder.select_events(_as_uuid(x)):
                if stored.topic == _FORKED_TOPIC:
                    out[x] = stored.originator_version
        return out

    # -- one session ------------------------------------------------------------------

    def session_events(self, log_id: UUID, *, gt: int | None = None, lte: int | None = None) -> list[LogEvent]:
        """One session's events in order (positions left 0: a session read does not know them)."""
        rows = self.recorder.select_events(log_id, gt=gt, lte=lte)
        events = [e for e in (self.decode(r) for r in rows) if e is not None]
        forked = next((e.version for e in events if e.kind == FORKED), None)
        if forked is None and events and events[0].kind != CREATED:
            forked = self._fork_versions([log_id]).get(log_id)  # a window of the log: ask the store
        if forked:
            for e in events:
                if e.kind == RECORDED and e.version < forked:
                    e.copied = True
        return events

    def window(self, log_id: UUID, first: int, last: int) -> list[LogEvent]:
        """A session's events with first <= version <= last, with their log positions (one read).

        Fork copies are not marked: callers fold the session's own state.
        """
        recorder = self.recorder
        rows: Sequence[tuple[Any, ...]]
        if isinstance(recorder, PostgresApplicationRecorder):
            from psycopg.rows import tuple_row

            with recorder.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
                curs.execute(
                    f"SELECT notification_id, originator_version, topic, state FROM {recorder.events_table_name}"
                    " WHERE originator_id = %s AND originator_version BETWEEN %s AND %s ORDER BY originator_version",
                    (log_id, first, last),
                    prepare=True,
                    binary=True,
                )
                rows = curs.fetchall()
        elif isinstance(recorder, SQLiteApplicationRecorder):
            with recorder.datastore.transaction(commit=False) as c, c as raw:
                raw.row_factory = None
                raw.execute(
                    f"SELECT rowid, originator_version, topic, state FROM {recorder.events_table_name}"
                    " WHERE originator_id = ? AND originator_version BETWEEN ? AND ? ORDER BY originator_version",
                    (log_id.hex, first, last),
                )
                rows = raw.fetchall()
        else:
            rows = [(i + 1, v, s.topic, s.state) for v, i, s in self._memory_rows(log_id, range(first, last + 1))]
        decode = self._decode_row
        return [e for e in (decode(p, log_id, v, t, s) for p, v, t, s in rows) if e is not None]

    # The last version at or before a time, by binary search inside the database, in one round
    # trip: a timestamp picked out of one payload per step (14 steps for 10,000 events). The
    # event at ``lo`` is at or before the time, the one at ``hi`` after it; ``hi`` starts past
    # the log's last version. A missing timestamp counts as later, as in ``TimeTravel``'s probes.
    # Also read: the log's genesis time (None when there is no such log).
    VERSION_AT_TIME_PG = (
        "WITH RECURSIVE s(lo, hi) AS ("
        " SELECT 1::bigint, (SELECT max(originator_version) + 1 FROM {table} WHERE originator_id = %(id)s)"
        " UNION ALL"
        " SELECT CASE WHEN t.ts <= %(ts)s THEN m.mid ELSE s.lo END, CASE WHEN t.ts <= %(ts)s THEN s.hi ELSE m.mid END"
        " FROM s CROSS JOIN LATERAL (SELECT (s.lo + s.hi) / 2 AS mid) m LEFT JOIN LATERAL ("
        "  SELECT COALESCE(j->'event'->>'timestamp', j->>'forked_time', j->>'deleted_time', j->>'created_time')::float8"
        "  AS ts FROM (SELECT convert_from(state, 'UTF8')::json AS j FROM {table}"
        "  WHERE originator_id = %(id)s AND originator_version = m.mid) e) t ON true"
        " WHERE s.hi - s.lo > 1)"
        " SELECT (SELECT lo FROM s WHERE hi - lo <= 1), (SELECT (convert_from(state, 'UTF8')::json->>'created_time')"
        "::float8 FROM {table} WHERE originator_id = %(id)s AND originator_version = 1)"
    )
    _TS_SQLITE = (
        "(SELECT COALESCE(json_extract(state, '$.event.timestamp'), json_extract(state, '$.forked_time'),"
        " json_extract(state, '$.deleted_time'), json_extract(state, '$.created_time')) FROM {table}"
        " WHERE originator_id = :id AND originator_version = {version})"
    )
    _NEXT_MID_SQLITE = "((CASE WHEN ts <= :ts THEN mid ELSE lo END) + (CASE WHEN ts <= :ts THEN hi ELSE mid END)) / 2"
    VERSION_AT_TIME_SQLITE = (
        "WITH RECURSIVE s(lo, hi, mid, ts) AS ("
        " SELECT 1, h, (1 + h) / 2, {first_ts} FROM"
        " (SELECT max(originator_version) + 1 AS h FROM {table} WHERE originator_id = :id)"
        " UNION ALL"
        " SELECT CASE WHEN ts <= :ts THEN mid ELSE lo END, CASE WHEN ts <= :ts THEN hi ELSE mid END,"
        " {next_mid}, {next_ts} FROM s WHERE hi - lo > 1)"
        " SELECT (SELECT lo FROM s WHERE hi - lo <= 1), (SELECT json_extract(state, '$.created_time') FROM {table}"
        " WHERE originator_id = :id AND originator_version = 1)"
    )

    def version_at_time(self, log_id: UUID, timestamp: float) -> tuple[int | None, float | None] | None:
        """(The session log's last version whose event is at or before ``timestamp``, its genesis
        time) — timestamps taken to increase along the log; (None, None) when there is no such
        log; None when the store cannot search itself (the in-memory one: probe ``timestamps``)."""
        recorder = self.recorder
        table = getattr(recorder, "events_table_name", "")
        row: Any = None
        if isinstance(recorder, PostgresApplicationRecorder):
            from psycopg.rows import tuple_row

            with recorder.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
                curs.execute(
                    self.VERSION_AT_TIME_PG.format(table=table), {"ts": timestamp, "id": log_id}, prepare=True
                )
                row = curs.fetchone()
        elif isinstance(recorder, SQLiteApplicationRecorder):
            sql = self.VERSION_AT_TIME_SQLITE.format(
                table=table,
                first_ts=self._TS_SQLITE.format(table=table, version="(1 + h) / 2"),
                next_mid=self._NEXT_MID_SQLITE,
                next_ts=self._TS_SQLITE.format(table=table, version=self._NEXT_MID_SQLITE),
            )
            with recorder.datastore.transaction(commit=False) as c, c as raw:
                raw.row_factory = None
                raw.execute(sql, {"ts": timestamp, "id": log_id.hex})
                row = raw.fetchone()
        else:
            return None
        if row is None or row[0] is None or row[1] is None:
            return None, None
        return int(row[0]), float(row[1])

    def timestamps(self, log_id: UUID, versions: Sequence[int]) -> dict[int, float]:
        """The timestamps of a session's events at the given versions (one read; the database
        picks the timestamp out of each payload, so nothing else of it is decoded here)."""
        recorder = self.recorder
        found: dict[int, float | None]
        if isinstance(recorder, PostgresApplicationRecorder):
            from psycopg.rows import tuple_row

            with recorder.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
                curs.execute(
                    "SELECT v, COALESCE(j->'event'->>'timestamp', j->>'forked_time', j->>'deleted_time',"
                    " j->>'created_time') FROM (SELECT originator_version AS v, convert_from(state, 'UTF8')::json AS j"
                    f" FROM {recorder.events_table_name} WHERE originator_id = %s AND originator_version = ANY(%s)) s",
                    (log_id, list(versions)),
                    prepare=True,
                )
                found = {v: None if t is None else float(t) for v, t in curs.fetchall()}
        elif isinstance(recorder, SQLiteApplicationRecorder):
            with recorder.datastore.transaction(commit=False) as c, c as raw:
                raw.row_factory = None
                raw.execute(
                    "SELECT originator_version, COALESCE(json_extract(state, '$.event.timestamp'),"
                    " json_extract(state, '$.forked_time'), json_extract(state, '$.deleted_time'),"
                    f" json_extract(state, '$.created_time')) FROM {recorder.events_table_name}"
                    f" WHERE originator_id = ? AND originator_version IN ({','.join('?' * len(versions))})",
                    (log_id.hex, *versions),
                )
                found = dict(raw.fetchall())
        else:
            found = {}
            for v, _, stored in self._memory_rows(log_id, versions):
                event = self._decode_row(0, log_id, v, stored.topic, stored.state)
                if event is not None:
                    found[v] = event.timestamp
        return {v: t for v, t in found.items() if t is not None}

    def _memory_rows(self, log_id: UUID, versions: Iterable[int]) -> list[tuple[int, int, StoredEvent]]:
        """(version, index, stored event) of the in-memory log's events at those versions."""
        recorder: Any = self.recorder
        with recorder._database_lock:  # noqa: SLF001 - the in-memory log has no query language
            index = recorder._stored_events_index.get(str(log_id), {})  # noqa: SLF001
            return [(v, index[v], recorder._stored_events[index[v]]) for v in versions if v in index]  # noqa: SLF001

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
                    binary=True,
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
            return self.position_of(log_id, version), self.event_at(log_id, version)
        if row is None:
            return 0, None
        return row[0], self._decode_row(row[0], log_id, version, row[1], row[2])

    def position_of(self, log_id: UUID, version: int) -> int:
        """The log position (notification id) of a session's event at ``version``."""
        recorder = self.recorder
        if isinstance(recorder, POPOApplicationRecorder):
            with recorder._database_lock:  # noqa: SLF001 - the in-memory log has no query language
                index = recorder._stored_events_index.get(str(log_id), {})  # noqa: SLF001
                return index[version] + 1 if version in index else 0
        return self.locate(log_id, version)[0]

    # -- decoding ---------------------------------------------------------------------

    def decode(self, stored: StoredEvent | Notification, position: int = 0) -> LogEvent | None:
        """A stored event as a ``LogEvent`` (None for events that are not a session log's)."""
        return self._decode_row(position, stored.originator_id, stored.originator_version, stored.topic, stored.state)

    def _decode_row(
        self, position: int, raw_id: Any, version: int, topic: str, state: bytes, forks: dict[Any, int] | None = None
    ) -> LogEvent | None:
        kind_class = _KINDS.get(topic)
        if kind_class is None:
            return None
        kind, cls = kind_class
        payload = from_json(state)
        if payload.get("class_version", 1) != getattr(cls, "class_version", 1):
            payload = self._upcast(raw_id, version, topic, state)
        if kind == CREATED:
            identity = (payload["app_name"], payload["user_id"], payload["session_id"])
            if forks is not None:  # reading the whole log: remember the session, and if it is a fork
                log_id = self._remember(raw_id, *identity, forks.get(raw_id, 0))[3]
            else:
                log_id = _as_uuid(raw_id)
            return LogEvent(
                CREATED, *identity, version, payload["created_time"], {}, position, log_id,
                {"state": payload["state"]},
            )
        known = self._known.get(raw_id)
        if known is None:
            try:
                known = self._lookup(raw_id)
            except LookupError as e:
                # Its genesis is gone (purged mid-read): nothing to fold it into, now or in a rebuild.
                log.warning("skipping event %s of log %s: %s", version, raw_id, e)
                return None
        if kind == RECORDED:
            data = payload.get("event") or {}  # a purged event keeps its place, not its payload
            copied = version < known[4]
            return LogEvent(
                RECORDED, known[0], known[1], known[2], version, data.get("timestamp", 0.0), data, position,
                known[3], {}, copied, None, known[5], known[6],
            )
        if kind == REWOUND:
            data = payload.get("event") or {}
            return LogEvent(
                REWOUND, known[0], known[1], known[2], version, data.get("timestamp", 0.0), data, position, known[3],
                {k: payload.get(k) for k in _REWOUND_META},
            )
        if kind == FORKED:
            known[4] = 0  # the copies are behind us
            return LogEvent(
                FORKED, known[0], known[1], known[2], version, payload.get("forked_time", 0.0), {}, position,
                known[3], {k: payload.get(k) for k in _FORKED_META},
            )
        return LogEvent(
            DELETED, known[0], known[1], known[2], version, payload.get("deleted_time", 0.0), {}, position, known[3]
        )

    def _upcast(self, raw_id: Any, version: int, topic: str, state: bytes) -> dict[str, Any]:
        stored = StoredEvent(_as_uuid(raw_id), version, topic, state)
        domain_event = self.store.application.mapper.to_domain_event(stored)
        return dict(vars(domain_event))

    def identity(self, log_id: UUID) -> Identity:
        """(app, user, session id) of a session log."""
        known = self._known.get(log_id) or self._lookup(log_id)
        return known[0], known[1], known[2]

    def _lookup(self, raw_id: Any) -> _Known:
        log_id = _as_uuid(raw_id)
        rows: Sequence[StoredEvent] = self.recorder.select_events(log_id, lte=1)
        if not rows or rows[0].topic != SessionLog.Created.TOPIC:
            raise LookupError(f"Log {log_id} has no genesis event; is it a session log?")
        payload = from_json(rows[0].state)
        fork = self._fork_versions([raw_id]).get(raw_id, 0)
        return self._remember(raw_id, payload["app_name"], payload["user_id"], payload["session_id"], fork)

    def _remember(self, raw_id: Any, app_name: str, user_id: str, session_id: str, fork: int) -> _Known:
        known = [app_name, user_id, session_id, _as_uuid(raw_id), fork,
                 f"{app_name}/{user_id}/{session_id}", f"{app_name}/{user_id}"]
        with self._lock:
            if len(self._known) >= self._max_identities:
                self._known.clear()  # cheap to rebuild: a read or two per session seen again
            # Rows name a log by UUID, by its text or by its hex, depending on the store.
            self._known[raw_id] = known
            self._known[known[3]] = known
        return known


def _as_uuid(raw_id: Any) -> UUID:
    return raw_id if isinstance(raw_id, UUID) else UUID(str(raw_id))
