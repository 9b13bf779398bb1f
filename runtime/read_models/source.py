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
from pydantic_core import from_json as _from_json

from domain.session_log import SessionLog
from projections.log_event import CREATED, DELETED, FORKED, INTERRUPTED, RECORDED, REWOUND, LogEvent
from runtime.log_reader import LogReader
from runtime.stores import Store
from runtime.stores.application import recorded_event
from runtime.stores.base import as_uuid

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
    SessionLog.Interrupted.TOPIC: (INTERRUPTED, SessionLog.Interrupted),
}
TOPICS = tuple(_KINDS)
_CREATED_TOPIC = SessionLog.Created.TOPIC
_REWOUND_META = ("start_version", "restored_state", "restored_artifacts")
_FORKED_META = ("source_session_id", "source_log_id", "source_version", "before_invocation_id", "forked_time")

Identity = tuple[str, str, str]  # app, user, session id
# What the source knows of a log: app, user, session id, its UUID, the version of its
# ForkedFrom event when it is a fork whose copies have not all been read yet (else 0), and
# its session and user keys (``LogEvent.session_key``, ``user_key``).
_Known = list[Any]

_RECORDED_TOPIC = SessionLog.Recorded.TOPIC


class LogSource:
    """Reads and decodes one store's session logs."""

    def __init__(self, store: Store, *, max_identities: int = 200_000):
        self.store = store
        self.reader = LogReader(store)
        self._known: dict[Any, _Known] = {}
        self._max_identities = max_identities
        self._lock = threading.Lock()
        # Whether fetching in another thread overlaps the database's work with folding.
        self.prefetches = store.prefetches

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
                    data = recorded_event(state)
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
        return self.store.max_position()

    def _select_rows(self, after: int, limit: int, upto: int | None = None) -> Sequence[tuple[Any, ...]]:
        """(position, log id, version, topic, payload) rows, read the fastest way the store allows."""
        return self.store.log_rows(after, limit, upto)

    def _fork_versions(self, raw_ids: Iterable[Any]) -> dict[Any, int]:
        """{log id: version of its ForkedFrom event} for those logs that are forks."""
        return self.store.fork_versions(raw_ids)

    def _fork_version(self, raw_id: Any) -> int:
        """The version of one log's ForkedFrom event (0: not a fork). The session's aggregate (a
        snapshot and the events after it, usually cached) says whether it is a fork at all: only
        a fork's log is searched for the event, a search that reads the whole log."""
        try:
            log = self.store.application.repository.get(as_uuid(raw_id))
        except Exception:  # noqa: BLE001 - not a session log, or its events are gone: ask the log
            log = None
        if log is not None and getattr(log, "forked_from", None) is None:
            return 0
        return self._fork_versions([raw_id]).get(raw_id, 0)

    # -- one session ------------------------------------------------------------------

    def session_events(self, log_id: UUID, *, gt: int | None = None, lte: int | None = None) -> list[LogEvent]:
        """One session's events in order (positions left 0: a session read does not know them)."""
        rows = self.reader.stored_events(log_id, gt=gt, lte=lte)
        events = [e for e in (self.decode(r) for r in rows) if e is not None]
        forked = next((e.version for e in events if e.kind == FORKED), None)
        if forked is None and events and events[0].kind != CREATED:
            forked = self._fork_version(log_id)  # a window of the log: ask the store
        if forked:
            for e in events:
                if e.kind == RECORDED and e.version < forked:
                    e.copied = True
        return events

    def window(self, log_id: UUID, first: int, last: int) -> list[LogEvent]:
        """A session's events with first <= version <= last, with their log positions (one read).

        Fork copies are not marked: callers fold the session's own state.
        """
        rows = self.store.window_rows(log_id, first, last)
        decode = self._decode_row
        return [e for e in (decode(p, log_id, v, t, s) for p, v, t, s in rows) if e is not None]

    def version_at_time(self, log_id: UUID, timestamp: float) -> tuple[int | None, float | None] | None:
        """(The session log's last version whose event is at or before ``timestamp``, its genesis
        time) — timestamps taken to increase along the log; (None, None) when there is no such
        log; None when the store cannot search itself (then probe ``timestamps``)."""
        return self.store.version_at_time(log_id, timestamp)

    def timestamps(self, log_id: UUID, versions: Sequence[int]) -> dict[int, float]:
        """The timestamps of a session's events at the given versions (one read where the
        database can pick the timestamp out of each payload; else each event is decoded)."""
        found = self.store.timestamps(log_id, versions)
        if found is not None:
            return found
        events = (self.event_at(log_id, v) for v in versions)
        return {e.version: e.timestamp for e in events if e is not None}

    def event_at(self, log_id: UUID, version: int) -> LogEvent | None:
        rows = self.reader.stored_events(log_id, gt=version - 1, lte=version)
        return self.decode(rows[0]) if rows else None

    def locate(self, log_id: UUID, version: int) -> tuple[int, LogEvent | None]:
        """The log position of a session's event at ``version``, and the event (one read)."""
        row = self.store.locate_row(log_id, version)
        if row is None:
            return 0, None
        return row[0], self._decode_row(row[0], log_id, version, row[1], row[2])

    def position_of(self, log_id: UUID, version: int) -> int:
        """The log position (notification id) of a session's event at ``version``."""
        return self.store.position_of(log_id, version)

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
                log_id = as_uuid(raw_id)
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
        if kind == INTERRUPTED:
            return LogEvent(
                INTERRUPTED, known[0], known[1], known[2], version, payload.get("noted_time", 0.0), {}, position,
                known[3], {"invocation_id": payload.get("invocation_id"), "open_calls": payload.get("open_calls") or []},
            )
        return LogEvent(
            DELETED, known[0], known[1], known[2], version, payload.get("deleted_time", 0.0), {}, position, known[3]
        )

    def _upcast(self, raw_id: Any, version: int, topic: str, state: bytes) -> dict[str, Any]:
        stored = StoredEvent(as_uuid(raw_id), version, topic, state)
        domain_event = self.store.application.mapper.to_domain_event(stored)
        return dict(vars(domain_event))

    def identity(self, log_id: UUID) -> Identity:
        """(app, user, session id) of a session log."""
        known = self._known.get(log_id) or self._lookup(log_id)
        return known[0], known[1], known[2]

    def _lookup(self, raw_id: Any) -> _Known:
        log_id = as_uuid(raw_id)
        rows: Sequence[StoredEvent] = self.reader.stored_events(log_id, lte=1)
        if not rows or rows[0].topic != SessionLog.Created.TOPIC:
            raise LookupError(f"Log {log_id} has no genesis event; is it a session log?")
        payload = from_json(rows[0].state)
        fork = self._fork_version(raw_id)
        return self._remember(raw_id, payload["app_name"], payload["user_id"], payload["session_id"], fork)

    def _remember(self, raw_id: Any, app_name: str, user_id: str, session_id: str, fork: int) -> _Known:
        known = [app_name, user_id, session_id, as_uuid(raw_id), fork,
                 f"{app_name}/{user_id}/{session_id}", f"{app_name}/{user_id}"]
        with self._lock:
            if len(self._known) >= self._max_identities:
                self._known.clear()  # cheap to rebuild: a read or two per session seen again
            # Rows name a log by UUID, by its text or by its hex, depending on the store.
            self._known[raw_id] = known
            self._known[known[3]] = known
        return known
