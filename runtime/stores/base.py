"""What every store adapter provides, and the eventsourcing application over it.

A store adapter reads and writes stored events, snapshots and a few rows derived from
each append *in the same transaction* (so reads on any instance see them at once):

* ``chronicle_event_ids`` — (log, event id) → version: appends are idempotent by event id;
* ``chronicle_sessions`` — the session catalog that ``list_sessions`` reads;
* ``chronicle_scoped_state`` — current ``app:``/``user:`` values.

Which rows an append writes is decided by the service from the domain's rules; the
adapter only executes the writes.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Protocol, Sequence, TypeVar
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.domain import CanMutateAggregate
from eventsourcing.persistence import (
    AggregateRecorder,
    ApplicationRecorder,
    DatetimeAsISO,
    JSONTranscoder,
    Mapper,
    StoredEvent,
    Transcoder,
    UUIDAsHex,
)
from eventsourcing.utils import get_topic
from pydantic_core import to_json

from domain.log import SessionLog
from runtime.stores.io_threads import IoThreads

T = TypeVar("T")

SNAPSHOT_INTERVAL = 100


@dataclass
class CatalogRow:
    log_id: UUID
    app_name: str
    user_id: str
    session_id: str
    created_time: float
    last_update_time: float
    version: int
    deleted: bool = False
    state: dict[str, Any] | None = None  # None: unchanged by this write


# What list_sessions shows of a session: (session id, user id, last update, version, state).
# The state is a dict, or its JSON text where decoding is left to the caller.
Listing = tuple[str, str, float, int, Any]


@dataclass
class SideRows:
    """The derived rows one append (or one group of appends) writes along with its events."""

    claims: list[tuple[UUID, str, int]] = field(default_factory=list)  # (log, event id, version)
    new_sessions: list[CatalogRow] = field(default_factory=list)
    updated_sessions: list[CatalogRow] = field(default_factory=list)
    scoped: list[tuple[str, str, str, Any]] = field(default_factory=list)  # (app, user|'', key, value)

    def sorted_scoped(self) -> list[tuple[str, str, str, Any]]:
        """(app, user, key, value) in key order, values as given (each adapter encodes them
        its own way). A fixed order keeps two writers of the same keys from deadlocking; the
        last write of a key within one group wins, as it would have one by one."""
        latest = {(a, u, k): v for a, u, k, v in self.scoped}
        return [(a, u, k, v) for (a, u, k), v in sorted(latest.items(), key=lambda item: item[0])]

    @classmethod
    def merge(cls, sides: list["SideRows"]) -> "SideRows":
        if len(sides) == 1:
            return sides[0]
        merged = cls()
        for side in sides:
            merged.claims += side.claims
            merged.new_sessions += side.new_sessions
            merged.updated_sessions += side.updated_sessions
            merged.scoped += side.scoped
        return merged


def sql_filters(mark: str, conditions: Sequence[tuple[str, Any]]) -> tuple[str, list[Any]]:
    """`` AND column op <mark>`` for each (``"column op"``, value) whose value is not None,
    and those values: the optional filters of a SQL read, ``mark`` being the driver's
    placeholder."""
    present = [(condition, value) for condition, value in conditions if value is not None]
    return "".join(f" AND {condition} {mark}" for condition, _ in present), [value for _, value in present]


def select_events_sql(
    table: str, mark: str, log_id: Any, gt: int | None, lte: int | None, desc: bool, limit: int | None
) -> tuple[str, list[Any]]:
    """The query the SQL stores read a log's events with: the three columns a reader needs
    (the library's version reads them all into dict rows and parses each row's id again),
    ``mark`` being the driver's placeholder."""
    where, params = sql_filters(mark, [("originator_version >", gt), ("originator_version <=", lte)])
    sql = f"SELECT originator_version, topic, state FROM {table} WHERE originator_id = {mark}{where}"
    sql += " ORDER BY originator_version DESC" if desc else " ORDER BY originator_version"
    if limit is not None:
        sql += f" LIMIT {mark}"
        params.append(limit)
    return sql, [log_id, *params]


class RowReads:
    """``select_events`` for a SQL adapter, on top of its ``select_rows``."""

    def select_rows(
        self, log_id: UUID, *, gt: int | None = None, lte: int | None = None, desc: bool = False,
        limit: int | None = None,
    ) -> list[tuple[int, str, bytes]]:
        raise NotImplementedError

    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        log_id = originator_id if isinstance(originator_id, UUID) else UUID(originator_id)
        rows = self.select_rows(log_id, gt=gt, lte=lte, desc=desc, limit=limit)
        return [StoredEvent(log_id, version, topic, state) for version, topic, state in rows]


class LogRecorder(Protocol):
    """The side-table reads a store adapter adds to eventsourcing's recorder."""

    def find_claim(self, log_id: UUID, event_id: str) -> int | None: ...

    def select_listing(self, app_name: str, user_id: str | None) -> list[Listing]: ...

    def select_catalog(self, app_name: str | None = None, user_id: str | None = None) -> list[CatalogRow]: ...

    def select_scoped(self, app_name: str, user_id: str) -> dict[str, Any]: ...

    def select_app_scoped(self, app_name: str) -> dict[str, dict[str, Any]]:
        """Every ``app:`` and ``user:`` value of an app, by user id ('' for the app's own)."""
        ...

    def select_rows(
        self, log_id: UUID, *, gt: int | None = None, lte: int | None = None, desc: bool = False,
        limit: int | None = None,
    ) -> list[tuple[int, str, bytes]]:
        """A log's stored events as (version, topic, state) rows: ``select_events`` without
        building an object per event, for reads of a whole session."""
        ...


# A session log's own events hold JSON values only (checked before they are recorded),
# apart from the library's timestamps; so do its snapshots, whose state is the log's
# attributes (``domain.log.SessionLog``: JSON values, and two library datetimes).
_JSON_PAYLOAD_EVENTS = (SessionLog.Chained, SessionLog.Created, SessionLog.Snapshot)


class VersionedMapper(Mapper):
    """Writes the schema version into every payload (eventsourcing omits version 1)."""

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        state = dict(vars(domain_event))
        originator_id = state.pop("originator_id")
        originator_version = state.pop("originator_version")
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

    def _tagged(self, moment: datetime) -> dict[str, Any]:
        transcoding = self.transcoder.types[datetime]  # type: ignore[attr-defined]
        return {"_type_": transcoding.name, "_data_": transcoding.encode(moment)}

    def _tag_datetimes(self, values: dict[str, Any]) -> dict[str, Any]:
        for key, value in values.items():
            if isinstance(value, datetime):
                values[key] = self._tagged(value)
        return values


def make_transcoder() -> Transcoder:
    transcoder = JSONTranscoder()
    transcoder.register(UUIDAsHex())
    transcoder.register(DatetimeAsISO())
    return transcoder


class LogApplication(Application):
    """The eventsourcing application that stores session logs in a given recorder."""

    name = "chronicle"
    snapshotting_intervals = {SessionLog: SNAPSHOT_INTERVAL}
    env = {"AGGREGATE_CACHE_MAXSIZE": "10000", "DEEPCOPY_FROM_AGGREGATE_CACHE": "n"}

    def __init__(self, recorder: ApplicationRecorder, snapshot_recorder: AggregateRecorder):
        self._given_recorder = recorder
        self._given_snapshot_recorder = snapshot_recorder
        super().__init__(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})

    def construct_mapper(self) -> Mapper:
        return VersionedMapper(transcoder=make_transcoder())

    def construct_recorder(self) -> ApplicationRecorder:
        return self._given_recorder

    def construct_snapshot_store(self):  # type: ignore[override]
        return self.factory.event_store(mapper=self.mapper, recorder=self._given_snapshot_recorder)

    def record(self, events: list[Any], logs: list[Any], **kwargs: Any) -> None:
        """Store events already collected from their logs, then snapshot the logs that are
        due. (``save`` would check every object against runtime Protocols and build
        bookkeeping nothing here reads: a large share of an in-memory append. So would
        ``events.put``, a recording object per event.)"""
        self.recorder.insert_events([self.mapper.to_stored_event(e) for e in events], **kwargs)
        if any(e.originator_version % SNAPSHOT_INTERVAL == 0 for e in events):
            self._snapshot(events, {log.id: log for log in logs})

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


class Store:
    """One backend: its recorders, the log application over them, and where I/O runs."""

    def __init__(
        self,
        url: str,
        recorder: Any,
        snapshot_recorder: AggregateRecorder,
        *,
        threads: int,
    ):
        self.url = url
        self.recorder = recorder
        self.application = LogApplication(recorder, snapshot_recorder)
        self._group_commit = GroupCommit(self.application)
        # The eventsourcing library is synchronous: store I/O runs in a few threads so
        # it never blocks the event loop. The in-memory store runs inline.
        self._threads = IoThreads(threads) if threads else None

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        if self._threads is None:
            return fn(*args)
        return await self._threads.call(fn, *args)

    def save(self, log: Any, side: SideRows) -> None:
        """Record a log's pending events with their derived rows (group-committed)."""
        if self._threads is None:
            # In memory a write is a few dict updates under the recorder's lock: there is
            # no commit to share, so grouping would only add its own bookkeeping.
            self.application.record(log.collect_events(), [log], side=side)
            return
        self._group_commit.save(log, side)

    def close(self) -> None:
        if self._threads is not None:
            self._threads.close()
        self.application.close()
