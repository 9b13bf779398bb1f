"""The session logs of one store as the session service holds them: a lock per log, the store's
cached logs, saving a log with its side rows, and the reads an append or a rewind makes under
that lock. The service (service.py) and its rewinds (session_rewind.py) share one ``SessionLogs``."""

from __future__ import annotations

import copy
import threading
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import StoredEvent
from pydantic import BaseModel, ConfigDict, ValidationError

from domain.events import Event
from domain.session_log import SessionLog
from projections.session_at import SessionAt, session_at
from runtime.log_reader import LogReader
from runtime.read_models.source import LogSource
from runtime.stores import CatalogRow, SideRows, Store
from runtime.stores.application import recorded_event_json


class _StoredRecorded(BaseModel):
    """Reads a stored ``Recorded`` payload straight from its JSON (bytes parts included)."""

    model_config = ConfigDict(extra="ignore")
    event: Event


def parse_recorded(stored: StoredEvent) -> Event:
    return parse_recorded_state(stored.state)


def parse_recorded_state(state: bytes) -> Event:
    """The ADK event in a stored ``Recorded`` or ``Rewound`` payload: read from the event's own
    text when the payload is a current ``Recorded`` one (the rest of it is not needed here), else
    from the whole payload (and a bad row's typed error comes from there)."""
    text = recorded_event_json(state)
    if text is not None:
        try:
            return _validate_event_json(text)
        except ValidationError:
            pass
    return _StoredRecorded.model_validate_json(state).event


_validate_event_json = Event.__pydantic_validator__.validate_json


def copy_state(state: dict[str, Any]) -> dict[str, Any]:
    # Callers may mutate what they get; the cached log must not change with it.
    return {k: copy.deepcopy(v) if isinstance(v, (dict, list)) else v for k, v in state.items()}


def catalog_row(log: SessionLog, *, state: dict[str, Any] | None = None) -> CatalogRow:
    """The log's row in the session catalog (``state``: the session's state to list, when it changed)."""
    return CatalogRow(
        log_id=log.id,
        app_name=log.app_name,
        user_id=log.user_id,
        session_id=log.session_id,
        created_time=log.created_time,
        last_update_time=log.last_update_time,
        version=log.version,
        deleted=log.deleted,
        state=None if state is None else dict(state),
    )


class SessionLogs:
    """The session logs of one store; every method runs in the store's thread."""

    def __init__(self, store: Store):
        self.store = store
        self._repository = store.application.repository
        self._reader = LogReader(store)
        self._source = LogSource(store)
        self._locks: dict[UUID, threading.Lock] = {}

    def lock(self, log_id: UUID) -> threading.Lock:
        """The lock that orders this process's writers of one log."""
        return self._locks.get(log_id) or self._locks.setdefault(log_id, threading.Lock())

    def load(self, log_id: UUID) -> SessionLog | None:
        """The log (from the cache when it is there); None when it does not exist or was deleted."""
        try:
            log = self._repository.get(log_id)
        except AggregateNotFoundError:
            return None
        return None if log.deleted else log

    def cached_at(self, log_id: UUID, version: int | None) -> SessionLog | None:
        """The cached log if it is at ``version`` (so reading the store again would add
        nothing), else None."""
        cache = self._repository.cache
        if cache is None or version is None:
            return None
        try:
            log = cache.get(log_id)
        except KeyError:
            return None
        return log if log.version == version and not log.deleted else None

    def load_for_append(self, log_id: UUID, expected: int | None) -> SessionLog | None:
        # Hot path: when the cached log is at the version the writer expects, write
        # without reading first. If another process appended meanwhile, the store's
        # (log, version) key refuses the write and the writer gets StaleSessionError.
        return self.cached_at(log_id, expected) or self.load(log_id)

    def save(self, log: SessionLog, side: SideRows) -> None:
        """Record the log's pending events. The cached log already holds them, so on any
        failure it is dropped and the next use reloads what was really stored."""
        try:
            self.store.save(log, side)
        except BaseException:
            self.store.forget_cached(log.id)
            raise

    def state_at(self, log: SessionLog, version: int) -> SessionAt:
        """The session's own state and artifact view at ``version`` (``projections.session_at``):
        the nearest snapshot's two parts, read without its invocation index (which grows with
        the session), then the events after it -- so the cost does not grow with history."""
        snapshot = self.store.nearest_snapshot(log.id, version)
        start = snapshot[0] if snapshot is not None else 0
        return session_at(snapshot, self._source.window(log.id, start + 1, version), version)

    def stored_event(self, log_id: UUID, event_id: str) -> Event | None:
        """The event recorded under ``event_id`` in the log, if any (appends are idempotent by id)."""
        version = self._reader.claim(log_id, event_id)
        if version is None:
            return None
        rows = self._reader.stored_events(log_id, gt=version - 1, lte=version)
        return parse_recorded(rows[0]) if rows else None
