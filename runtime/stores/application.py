"""The eventsourcing application every store runs over its recorders, and its group commit.

The one place outside the backend packages that reaches into eventsourcing: ``LogApplication``
overrides the library's ``_take_snapshots`` hook (``save`` calls it), ``VersionedMapper``
writes the stored JSON's byte layout itself, and ``recorded_event`` reads it back. ``tests/test_library_internals.py`` fails loudly
if the library changes either.
"""

from __future__ import annotations

import functools
import logging
import sys
import threading
from datetime import datetime
from typing import Any, Callable

from eventsourcing.application import Application, LRUCache, Repository
import eventsourcing.popo  # noqa: F401 - named as the persistence module below: imported with the store, not at its first open
from eventsourcing.domain import CanMutateAggregate
from eventsourcing.persistence import (
    AggregateRecorder,
    ApplicationRecorder,
    DatetimeAsISO,
    EventStore,
    JSONTranscoder,
    Mapper,
    StoredEvent,
    Transcoder,
    UUIDAsHex,
)
from eventsourcing.utils import get_topic, resolve_topic
from pydantic_core import from_json, to_json

from domain.chained import ENCODED_PAYLOAD, snapshot_problem
from domain.session_log import SessionLog
from runtime.stores.rows import SideRows

log = logging.getLogger("chronicle.snapshots")

SNAPSHOT_INTERVAL = 100
# Snapshots kept: those at multiples of KEEP_EVERY (time travel or a rewind far back replays at
# most this many events) and the ones since the last of them; the rest are deleted when the next
# multiple is taken (a delete every KEEP_EVERY versions, not one per snapshot: no cost on most).
KEEP_EVERY = 10 * SNAPSHOT_INTERVAL

# A session log's own events hold JSON values only (checked before they are recorded),
# apart from the library's timestamps; so do its snapshots, whose state is the log's
# attributes (``domain.session_log.SessionLog``: JSON values, and two library datetimes).
_JSON_PAYLOAD_EVENTS = (SessionLog.Chained, SessionLog.Created, SessionLog.Snapshot)


class VersionedMapper(Mapper):
    """Writes the schema version into every payload (eventsourcing omits version 1)."""

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        attributes = domain_event.__dict__
        encoded = attributes.get(ENCODED_PAYLOAD)
        if (
            encoded is not None
            and len(attributes) == _CHAINED_ONE_PAYLOAD
            and isinstance(domain_event, SessionLog.Chained)  # a log whose events are stored as JSON
        ):
            # A chained event of one payload attribute (every append's): written from its
            # parts, without copying its attributes into a dict and encoding that.
            return stored_event(
                attributes["originator_id"], attributes["originator_version"], get_topic(type(domain_event)),
                self._chained_bytes(attributes, encoded, getattr(type(domain_event), "class_version", 1)),
            )
        state = dict(vars(domain_event))
        originator_id = state.pop("originator_id")
        originator_version = state.pop("originator_version")
        state.pop(ENCODED_PAYLOAD, None)
        state["class_version"] = getattr(type(domain_event), "class_version", 1)
        return StoredEvent(
            originator_id=originator_id,
            originator_version=originator_version,
            topic=get_topic(type(domain_event)),
            state=self._encode(domain_event, state),
        )

    def _encode(self, domain_event: Any, state: dict[str, Any]) -> bytes:
        if not isinstance(domain_event, _JSON_PAYLOAD_EVENTS):
            return self.transcoder.encode(state)
        # The same JSON the transcoder writes, many times faster (a snapshot of a long
        # session is 100 kB): tag the library's datetimes as the transcoder would, and
        # let pydantic-core encode the rest.
        if isinstance(domain_event, SessionLog.Snapshot):
            self._tag_datetimes(state)
            state["state"] = self._tag_datetimes(dict(state["state"]))
        else:
            state["timestamp"] = self._tagged(state["timestamp"])
        return to_json(state)

    def _chained_bytes(self, attributes: dict[str, Any], encoded: bytes, class_version: int) -> bytes:
        """``_encode``'s bytes for a chained event of one payload attribute whose ``{"name":value}``
        the digest already encoded: its attributes are, in order, the library's id, version and
        timestamp, then ``digest``, ``chain`` and that attribute (``domain.chained``). The head is
        formatted, not encoded: the tag, the ISO time, the digest and the link are ASCII without
        quotes or backslashes (``domain.chain`` writes hex), which JSON writes as they are."""
        transcoding = self._datetimes
        return b'{"timestamp":{"_type_":"%s","_data_":"%s"},"digest":"%s","chain":"%s",%s,"class_version":%d}' % (
            transcoding.name.encode(), transcoding.encode(attributes["timestamp"]).encode(),
            attributes["digest"].encode(), attributes["chain"].encode(), encoded[1:-1], class_version,
        )

    def _tagged(self, moment: datetime) -> dict[str, Any]:
        transcoding = self._datetimes
        return {"_type_": transcoding.name, "_data_": transcoding.encode(moment)}

    @functools.cached_property
    def _datetimes(self) -> Any:
        return self.transcoder.types[datetime]  # type: ignore[attr-defined]

    def _tag_datetimes(self, values: dict[str, Any]) -> dict[str, Any]:
        for key, value in values.items():
            if isinstance(value, datetime):
                values[key] = self._tagged(value)
        return values


def stored_event(originator_id: Any, originator_version: int, topic: str, state: bytes) -> StoredEvent:
    """``StoredEvent(...)`` without its frozen dataclass's ``__init__`` (a setattr per field, a
    share of an in-memory append): the same object, its fields set at once."""
    stored = object.__new__(StoredEvent)
    object.__setattr__(stored, "__dict__", {
        "originator_id": originator_id, "originator_version": originator_version, "topic": topic, "state": state,
    })
    return stored


# The attributes of a chained event of one payload attribute with its digest's bytes kept: the
# library's id, version and timestamp, digest, chain, the attribute, and ENCODED_PAYLOAD.
_CHAINED_ONE_PAYLOAD = 7


def make_transcoder() -> Transcoder:
    transcoder = JSONTranscoder()
    transcoder.register(UUIDAsHex())
    transcoder.register(DatetimeAsISO())
    return transcoder


def stored_link(recorder: Any, log_id: Any, version: int) -> str | None:
    """The link stored with a log's event at ``version`` (None: no such event, or no link)."""
    rows = recorder.select_events(log_id, gt=version - 1, lte=version)
    if not rows:
        return None
    try:
        link = from_json(rows[0].state).get("chain")
    except ValueError:
        return None
    return link if isinstance(link, str) else None


class SnapshotFallbacks:
    """Snapshots a load refused (the log was replayed instead): logged, and counted here for
    whoever watches the store (``verify`` refolds every snapshot and reports each one)."""

    def __init__(self) -> None:
        self.count = 0
        self.last: tuple[Any, int, str] | None = None  # (log id, snapshot version, why)

    def refused(self, log_id: Any, version: int, why: str) -> None:
        self.count += 1
        self.last = (log_id, version, why)
        log.warning("Snapshot of log %s at version %d not used, the log is replayed instead: %s. "
                    "Run `chronicle verify` to see what else was changed.", log_id, version, why)


class CheckedSnapshots(EventStore):
    """The snapshot store a load reads: a snapshot whose digest or chain head disagrees with
    the log (``domain.chained.snapshot_problem``, one read of the event at its version) is
    never served; the repository then replays the log from its start."""

    def __init__(self, mapper: Mapper, recorder: AggregateRecorder, events: ApplicationRecorder):
        super().__init__(mapper=mapper, recorder=recorder)
        self._events = events
        self.fallbacks = SnapshotFallbacks()

    def get(self, originator_id: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        found = list(super().get(originator_id, **kwargs))
        checked = []
        for snapshot in found:
            digest = getattr(snapshot, "digest", None)
            if digest is None:
                continue  # written before snapshots carried digests: replayed, quietly
            link = stored_link(self._events, originator_id, snapshot.originator_version)
            why = snapshot_problem(snapshot.state, digest, link)
            if why is None:
                checked.append(snapshot)
            else:
                self.fallbacks.refused(originator_id, snapshot.originator_version, why)
        return iter(checked)


class LogApplication(Application):
    """The eventsourcing application that stores session logs in a given recorder."""

    name = "chronicle"
    snapshotting_intervals = {SessionLog: SNAPSHOT_INTERVAL}
    env = {"AGGREGATE_CACHE_MAXSIZE": "10000", "DEEPCOPY_FROM_AGGREGATE_CACHE": "n"}

    def __init__(self, recorder: ApplicationRecorder, snapshot_recorder: AggregateRecorder,
                 prune_snapshots: Callable[[Any, int, int], None]):  # (log id, below, keep every)
        self._given_recorder = recorder
        self._given_snapshot_recorder = snapshot_recorder
        self._prune_snapshots = prune_snapshots  # the store's: deletes a log's snapshots not kept
        super().__init__(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})

    def construct_repository(self) -> Repository:
        repository = super().construct_repository()
        if type(repository.cache) is LRUCache and repository.cache.maxsize > 1:
            repository.cache = RecentFirstCache(maxsize=repository.cache.maxsize)
        return repository

    def construct_mapper(self) -> Mapper:
        return VersionedMapper(transcoder=make_transcoder())

    def construct_recorder(self) -> ApplicationRecorder:
        return self._given_recorder

    def construct_snapshot_store(self):  # type: ignore[override]
        return CheckedSnapshots(self.mapper, self._given_snapshot_recorder, self._given_recorder)

    def record(self, events: list[Any], logs: list[Any], **kwargs: Any) -> None:
        """Store events already collected from their logs, then snapshot the logs that are
        due. (``save`` would check every object against runtime Protocols and build
        bookkeeping nothing here reads: a large share of an in-memory append. So would
        ``events.put``, a recording object per event.)"""
        self.recorder.insert_events([self.mapper.to_stored_event(e) for e in events], **kwargs)
        for e in events:
            if e.originator_version % SNAPSHOT_INTERVAL == 0:
                self._snapshot(events, {log.id: log for log in logs})
                return

    def _take_snapshots(self, processing_event: Any) -> None:  # the library's save() calls this
        self._snapshot(processing_event.events, processing_event.aggregates)

    def _snapshot(self, events: list[Any], logs: dict[Any, Any]) -> None:
        # Snapshot the aggregate in hand instead of reloading it (the library's default).
        assert self.snapshots is not None
        for event in events:
            if event.originator_version % SNAPSHOT_INTERVAL:
                continue  # the cheap test first: CanMutateAggregate is a runtime Protocol
            log = logs.get(event.originator_id)
            if (
                isinstance(log, SessionLog)
                and isinstance(event, CanMutateAggregate)
                and log.version == event.originator_version
            ):
                self.snapshots.put([SessionLog.Snapshot.take(log)])
                if log.version % KEEP_EVERY == 0:  # older ones of a store written before too
                    self._prune_snapshots(log.id, log.version, KEEP_EVERY)


class RecentFirstCache(LRUCache):
    """The library's LRU cache of logs, whose ``get`` leaves the most recently used log where it is
    instead of relinking it under the cache's lock: a conversation's appends ask for the same log
    again and again. Read without the lock: the dict's look-up and the link's fields are each
    atomic, and the most recent link is the last one a ``put`` would reuse (it reuses the oldest,
    which is another link when the cache holds more than one)."""

    def get(self, key: Any, *, evict: bool = False) -> Any:
        if not evict:
            link = self.cache.get(key)
            if link is not None and self.root[self.PREV] is link:
                return link[self.RESULT]
        return super().get(key, evict=evict)


class _Pending:
    __slots__ = ("events", "log", "side", "done", "error")

    def __init__(self, log: Any, side: SideRows):
        self.events = log.collect_events()  # taken now, so a failed group can be retried
        self.log, self.side = log, side
        self.done = False
        self.error: BaseException | None = None


class GroupCommit:
    """Writes concurrent appends to different sessions in one transaction.

    No thread of its own: the first writer to arrive commits everything queued by then
    (the leader); writers arriving meanwhile queue up and the next leader takes them all.
    A lone writer pays nothing extra. If a group fails (one stale writer, one duplicate
    event id), its members are retried one by one so each gets its own outcome.
    """

    MAX_GROUP = 256

    def __init__(self, application: LogApplication):
        self._application = application
        self._leader = threading.Lock()
        self._queue_lock = threading.Lock()
        self._queue: list[_Pending] = []

    def save(self, log: Any, side: SideRows) -> None:
        if self._leader.acquire(blocking=False):
            try:
                if not self._queue:  # nobody waiting: commit alone, no queueing
                    self._application.record(log.collect_events(), [log], side=side)
                    return
            finally:
                self._leader.release()
        pending = _Pending(log, side)
        with self._queue_lock:
            self._queue.append(pending)
        while not pending.done:
            with self._leader:
                if pending.done:
                    break
                with self._queue_lock:
                    group, self._queue = self._queue[: self.MAX_GROUP], self._queue[self.MAX_GROUP :]
                self._commit(group)
        if pending.error is not None:
            raise pending.error

    def _commit(self, group: list[_Pending]) -> None:
        try:
            self._save(group)
        except Exception:
            if len(group) == 1:
                group[0].error = sys.exc_info()[1]
                group[0].done = True
                return
            for member in group:
                try:
                    self._save([member])
                except Exception as e:  # noqa: BLE001 - handed to its own writer
                    member.error = e
                member.done = True
            return
        for member in group:
            member.done = True

    def _save(self, group: list[_Pending]) -> None:
        events = [e for member in group for e in member.events]
        logs = [member.log for member in group]
        self._application.record(events, logs, side=SideRows.merge([m.side for m in group]))


def domain_event(mapper: Mapper, stored: StoredEvent, payload: dict[str, Any]) -> Any:
    """The domain event of a stored event whose payload the caller has already decoded with the
    mapper's transcoder (``verify`` decodes each payload once, for the chain and the refold). A
    payload of the event class's current version becomes the event as the mapper would build it;
    an older one is left to the mapper, which upcasts it."""
    cls = resolve_topic(stored.topic)
    if payload.get("class_version", 1) != getattr(cls, "class_version", 1):
        return mapper.to_domain_event(stored)
    state = {k: v for k, v in payload.items() if k != "class_version"}
    state["originator_id"], state["originator_version"] = stored.originator_id, stored.originator_version
    event = object.__new__(cls)
    object.__setattr__(event, "__dict__", state)
    return event


_RECORDED_TAIL = b',"class_version":%d}' % getattr(SessionLog.Recorded, "class_version", 1)


def recorded_event(state: bytes) -> dict[str, Any] | None:
    """The ADK event of a current ``Recorded`` payload, decoding that part of it only (or None:
    then decode the whole payload). It reads the layout ``VersionedMapper`` writes, so it lives
    beside it.

    A payload is ``{"timestamp": …, "digest": …, "chain": …, "event": {…}, "class_version": N}``:
    the event is most of it, and the rest is not needed here. The text between the first
    ``,"event":`` and a final ``,"class_version":N}`` (N current) is exactly the event whenever it
    parses: an unescaped quote cannot occur inside a JSON string, so those markers are
    structural; a first ``"event"`` key nested deeper, or another key after the event, would
    leave unbalanced brackets or a stray member in the slice, which does not parse.
    """
    text = recorded_event_json(state)
    if text is None:
        return None
    try:
        data = from_json(text, cache_strings="keys")
    except ValueError:
        return None
    return data if type(data) is dict else None


def recorded_event_json(state: bytes) -> bytes | None:
    """The JSON text of the ADK event in a current ``Recorded`` payload (``recorded_event``'s
    slice: exactly the event whenever it parses), or None when the payload is not laid out so."""
    if not state.endswith(_RECORDED_TAIL):
        return None
    start = state.find(b',"event":')
    return None if start < 0 else state[start + 9 : len(state) - len(_RECORDED_TAIL)]
