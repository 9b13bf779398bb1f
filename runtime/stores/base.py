"""The one interface every store backend implements, and the rows it writes with each append.

A store is a package under ``runtime/stores/`` (``memory``, ``sqlite``, ``postgres``), the
way eventsourcing has ``popo``, ``sqlite`` and ``postgres``. Each package holds everything its
backend needs — the log recorder, read-model storage, memory index, blob store, purge
statements and the raw reads of the projection source and time travel — behind ``Store``.
Nothing above ``runtime/stores`` names a backend or reaches into a library's internals; adding
a store means adding a package.

A recorder reads and writes stored events, snapshots and a few rows derived from each append
*in the same transaction* (so reads on any instance see them at once):

* ``chronicle_event_ids`` — (log, event id) → version: appends are idempotent by event id;
* ``chronicle_sessions`` — the session catalog that ``list_sessions`` reads;
* ``chronicle_scoped_state`` — current ``app:``/``user:`` values.

Which rows an append writes is decided by the service from the domain's rules; the
recorder only executes the writes.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, NamedTuple, Protocol, Sequence, TypeVar
from uuid import UUID

from eventsourcing.persistence import (
    AggregateRecorder, IntegrityError, InterfaceError, Notification, OperationalError, PersistenceError,
    ProgrammingError, StoredEvent,
)

from domain.errors import ChronicleError, StoreError, StoreUnavailableError
from domain.session_log import RECORDED_TOPICS
from domain.state import with_scoped
from runtime.stores.application import GroupCommit, LogApplication
from runtime.stores.io_threads import IoThreads
from runtime.stores.rows import CatalogRow, Listing, SideRows

if TYPE_CHECKING:
    from runtime.stores.blobs import BlobStore
    from runtime.stores.credentials import CredentialTable
    from runtime.stores.memory_index import MemoryIndex
    from runtime.stores.projection_storage import ProjectionStorage
    from runtime.stores.purge_sql import PurgeSql

T = TypeVar("T")

class LogRecorder(Protocol):
    """What services read and write through a store's recorder: eventsourcing's application
    recorder, plus the side rows each append writes."""

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None: ...

    def select_events(
        self, originator_id: UUID | str, *, gt: int | None = None, lte: int | None = None, desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]: ...

    def select_notifications(
        self, start: int | None, limit: int, stop: int | None = None, topics: Sequence[str] = (), *,
        inclusive_of_start: bool = True,
    ) -> Sequence[Notification]: ...

    def max_notification_id(self) -> int | None: ...

    def select_rows(
        self, log_id: UUID, *, gt: int | None = None, lte: int | None = None, desc: bool = False,
        limit: int | None = None,
    ) -> list[tuple[int, str, bytes]]:
        """A log's stored events as (version, topic, state) rows: ``select_events`` without
        building an object per event, for reads of a whole session."""
        ...

    def find_claim(self, log_id: UUID, event_id: str) -> int | None: ...

    def select_claims(self, log_id: UUID, event_ids: Sequence[str] | None = None) -> dict[str, int]:
        """A log's event-id claims: {event id: version} (what ``verify`` checks against the log);
        every one, or those of ``event_ids``."""
        ...

    def count_claims(self, log_id: UUID) -> int:
        """How many event-id claims a log has."""
        ...

    def select_listing(self, app_name: str, user_id: str | None) -> list[Listing]: ...

    def select_catalog(
        self, app_name: str | None = None, user_id: str | None = None, *, log_id: UUID | None = None,
        session_id: str | None = None,
    ) -> list[CatalogRow]:
        """Catalog rows (deleted sessions too) by app, user and session id, or the one row of a log (by its key)."""
        ...

    def select_scoped_rows(self, app_name: str, user_id: str | None) -> dict[str, dict[str, Any]]:
        """The stored ``app:`` and ``user:`` values of an app, by user id ('' for the app's own):
        those of one user and the app's, or (``user_id`` None) of every user."""
        ...

    def select_scoped(self, app_name: str, user_id: str) -> dict[str, Any]:
        """The ``app:`` and ``user:`` values a session of this user sees (``ScopedReads``)."""
        ...


def causes(error: BaseException) -> Iterator[BaseException]:
    """The error, then what it wraps: eventsourcing wraps driver errors (as an argument, a cause)."""
    seen: set[int] = set()
    todo = [error]
    while todo:
        current = todo.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        context = None if current.__suppress_context__ else current.__context__
        todo.extend(e for e in (current.__cause__, context, *current.args[:1]) if isinstance(e, BaseException))


def library_error(error: BaseException) -> StoreError | None:
    """A StoreError for an error of the eventsourcing library that no backend mapped."""
    if isinstance(error, ChronicleError):
        return None
    detail = " ".join(str(error).split()) or type(error).__name__
    if isinstance(error, (OperationalError, InterfaceError)):  # DB-API's: the connection, not the data
        return StoreUnavailableError(detail)
    if isinstance(error, PersistenceError):
        return StoreError(f"The store failed: {detail}.")
    return None


def as_uuid(raw_id: Any) -> UUID:
    """A log id as a UUID (rows name a log by UUID, by its text or by its hex, depending on the store)."""
    return raw_id if isinstance(raw_id, UUID) else UUID(str(raw_id))


class ScopedReads:
    """``select_scoped`` for every recorder: its raw rows, merged by the domain's one rule."""

    def select_scoped_rows(self, app_name: str, user_id: str | None) -> dict[str, dict[str, Any]]:
        raise NotImplementedError

    def select_scoped(self, app_name: str, user_id: str) -> dict[str, Any]:
        rows = self.select_scoped_rows(app_name, user_id)
        return with_scoped(None, rows.get(""), rows.get(user_id))


def scoped_by_user(rows: Iterable[tuple[str, str, Any]]) -> dict[str, dict[str, Any]]:
    """(user id, key, value) rows as {user id: {key: value}}."""
    by_user: dict[str, dict[str, Any]] = {}
    for user_id, key, value in rows:
        by_user.setdefault(user_id, {})[key] = value
    return by_user


# Rows of the whole log: (position, log id as the backend gives it, version, topic, payload).
LogRow = tuple[Any, Any, int, str, bytes]
# Rows of one session's window: (position, version, topic, payload).
WindowRow = tuple[int, int, str, bytes]
# A snapshot's version and the parts of it reads need: {"state": ..., "artifacts": ...}.
SnapshotParts = tuple[int, dict[str, Any]]
# Whole logs read together (``Store.log_batch``), by log id: each one's stored events and stored
# snapshots (oldest first), its event-id claims ({event id: version}) and its catalog row (a
# session's, when it has one).
class LogBatch(NamedTuple):
    events: dict[UUID, list[StoredEvent]]
    snapshots: dict[UUID, list[StoredEvent]]
    claims: dict[UUID, dict[str, int]]
    catalog: dict[UUID, CatalogRow]


# What time travel reads for a point of a session (see ``Store.state_reads``).
StateReads = tuple[SnapshotParts | None, Sequence[WindowRow], int | None, dict[str, int], list[dict[str, Any]]]


class Store(ABC):
    """One backend: its recorders, the log application over them, where I/O runs, and the
    objects kept per store (read-model storage, memory index, blobs, runners, locks)."""

    # Opened read-only (an audit of a copy: ``sqlite:///copy.db?mode=ro``, a file or directory this
    # process may not write): reads and audits work, every write gives ReadOnlyStoreError, and
    # reads skip the writes they would otherwise make on the side (creating read-model tables).
    read_only = False

    def __init__(self, url: str, recorder: LogRecorder, snapshot_recorder: AggregateRecorder, *, threads: int):
        self.url = url
        self.recorder: LogRecorder = recorder
        self.application = LogApplication(recorder, snapshot_recorder, self.prune_snapshots)  # type: ignore[arg-type]
        self._group_commit = GroupCommit(self.application)
        # The eventsourcing library is synchronous: store I/O runs in a few threads so
        # it never blocks the event loop. The in-memory store runs inline.
        self._threads = IoThreads(threads) if threads else None
        self._owned: dict[str, Any] = {}
        self._owned_lock = threading.RLock()

    # -- running and writing ---------------------------------------------------------

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        try:
            if self._threads is None:
                return fn(*args)
            return await self._threads.call(fn, *args)
        except Exception as error:
            typed = None if isinstance(error, ChronicleError) else self.typed_error(error)
            if typed is None:
                raise
            raise typed from error

    def typed_error(self, error: BaseException) -> StoreError | None:
        """The typed error (``StoreUnavailableError``, ``StoreFullError``, ``ReadOnlyStoreError``, or
        a plain ``StoreError``) for a driver's or the library's error; None for any other error.
        Each backend maps its own driver's errors (``runtime/stores/<backend>/errors.py``), so no
        raw sqlite3, psycopg or eventsourcing exception leaves the services."""
        return library_error(error)

    def read_if_made(self, read: Callable[[], T], absent: T) -> T:
        """``read()``, or ``absent`` on a read-only store whose table ``read`` needs was never made
        (a store creates its side tables on first use, and a read-only one creates none)."""
        try:
            return read()
        except Exception as error:
            if self.read_only and self.missing_table(error):
                return absent
            raise

    def missing_table(self, error: BaseException) -> bool:
        """Whether ``error`` says a table does not exist (the backend's driver knows)."""
        return False

    # What to restore when the database's files are damaged (``integrity_problems``).
    restore_hint = "restore the store from a backup"

    def integrity_problems(self) -> list[str]:
        """What the database's own check finds wrong with its files (pages, indexes), in its
        words; empty when they are whole. The in-memory store has no files."""
        return []

    def save(self, log: Any, side: SideRows) -> None:
        """Record a log's pending events with their derived rows (group-committed)."""
        if self._threads is None:
            # In memory a write is a few dict updates under the recorder's lock: there is
            # no commit to share, so grouping would only add its own bookkeeping.
            self.application.record(log.collect_events(), [log], side=side)
            return
        self._group_commit.save(log, side)

    def append_events(self, events: Sequence[Any]) -> None:
        """Record domain events that carry no derived rows (a checkpoint log's) in one insert;
        the library's IntegrityError when another writer took one of their versions first."""
        self.recorder.insert_events([self.application.mapper.to_stored_event(e) for e in events])

    def forget_cached(self, log_id: UUID) -> None:
        """Drops a log from the application's cache, so its next use reloads what is stored (after a
        save that failed with the cached log already changed, or rows rewritten underneath it)."""
        cache = self.application.repository.cache
        if cache is not None:
            try:
                cache.get(log_id, evict=True)
            except KeyError:
                pass

    def close(self) -> None:
        if self._threads is not None:
            self._threads.close()
        self.application.close()

    # -- objects kept per store --------------------------------------------------------

    def owned(self, name: str, make: Callable[[], T]) -> T:
        """The store's one ``name`` object, made on first use (so every service on the store
        shares it, and it goes when the store goes)."""
        with self._owned_lock:
            if name not in self._owned:
                self._owned[name] = make()
            return self._owned[name]  # type: ignore[no-any-return]

    def projection_storage(self) -> ProjectionStorage:
        """The read-model tables, next to the log (created on first use)."""
        return self.owned("projection storage", self._created_projection_storage)

    def _created_projection_storage(self) -> ProjectionStorage:
        storage = self._make_projection_storage()
        if self.read_only:
            return storage  # the tables are there or not; a read-only store makes none
        for attempt in range(3):
            try:
                storage.create_table()
                return storage
            except (IntegrityError, ProgrammingError):
                # Two processes creating the same tables at once: the loser retries.
                if attempt == 2:
                    raise
        return storage

    def memory_index(self) -> MemoryIndex:
        """The memory read model, ranked with the backend's own full-text search."""
        return self.owned("memory index", self._make_memory_index)

    def blob_store(self) -> BlobStore:
        """Where artifact bytes live, content-addressed, in the store's own database."""
        return self.owned("blob store", self._make_blob_store)

    def credential_table(self) -> CredentialTable:
        """Where credentials a client supplies are kept: a table outside the log (secrets are not events)."""
        return self.owned("credential table", self._make_credential_table)

    @abstractmethod
    def _make_projection_storage(self) -> ProjectionStorage: ...

    @abstractmethod
    def _make_memory_index(self) -> MemoryIndex: ...

    @abstractmethod
    def _make_blob_store(self) -> BlobStore: ...

    @abstractmethod
    def _make_credential_table(self) -> CredentialTable: ...

    @abstractmethod
    def purge_statements(self) -> PurgeSql:
        """The statements a purge runs (a StoreError where the backend cannot purge)."""

    # -- raw reads of the log (the projection source's and time travel's) --------------

    prefetches = False  # whether fetching the next batch in another thread overlaps real work

    def settle(self) -> None:
        """After a bulk load: write deferred I/O back and refresh planner statistics, so the next
        reads do not pay for the load (benchmarks call it; a store with nothing deferred does nothing)."""

    def max_position(self) -> int:
        return self.recorder.max_notification_id() or 0

    @abstractmethod
    def log_rows(self, after: int, limit: int, upto: int | None) -> Sequence[LogRow]:
        """Stored events with after < position <= upto (no bound when None), at most ``limit``."""

    @abstractmethod
    def fork_versions(self, raw_ids: Iterable[Any]) -> dict[Any, int]:
        """{log id: version of its ForkedFrom event} for those logs that are forks (keyed as given)."""

    @abstractmethod
    def window_rows(self, log_id: UUID, first: int, last: int) -> Sequence[WindowRow]:
        """A session's events with first <= version <= last, with their log positions."""

    @abstractmethod
    def locate_row(self, log_id: UUID, version: int) -> tuple[int, str, bytes] | None:
        """(position, topic, payload) of a session's event at ``version`` (None: no such event)."""

    def position_of(self, log_id: UUID, version: int) -> int:
        """The log position of a session's event at ``version`` (0: no such event)."""
        row = self.locate_row(log_id, version)
        return 0 if row is None else row[0]

    def version_at_time(self, log_id: UUID, timestamp: float) -> tuple[int | None, float | None] | None:
        """(The session log's last version whose event is at or before ``timestamp``, its genesis
        time), searched by the database; (None, None) when there is no such log; None when the
        backend cannot search itself (then the caller probes ``timestamps``)."""
        return None

    def timestamps(self, log_id: UUID, versions: Sequence[int]) -> dict[int, float] | None:
        """The timestamps of a session's events at those versions, picked out of the payloads by
        the database; None when the backend cannot (then the caller decodes the events)."""
        return None

    def invocation_span(self, log_id: UUID, invocation_id: str) -> tuple[int, int] | None:
        """(first, last) version of a session's ADK events of one invocation, rewound ones too;
        None when no event of the session has it. Reads that session's rows only (a backend
        that can pick the id out in the database does; this one decodes each payload)."""
        from pydantic_core import from_json

        versions = [row.originator_version for row in self.recorder.select_events(log_id)
                    if row.topic in RECORDED_TOPICS and from_json(row.state)["event"].get("invocation_id") == invocation_id]
        return (versions[0], versions[-1]) if versions else None

    @abstractmethod
    def prune_snapshots(self, log_id: UUID, below: int, keep_every: int) -> None:
        """Deletes the log's snapshots at versions below ``below`` that are not multiples of
        ``keep_every`` (``LogApplication`` calls it; ``runtime.stores.application.KEEP_EVERY``)."""

    def stored_snapshots(self, log_id: UUID | str, *, gt: int | None = None, limit: int | None = None) -> Any:
        """A log's stored snapshots (after version ``gt``), oldest first, as the library stored them."""
        return self.application.snapshots.recorder.select_events(log_id, gt=gt, limit=limit)  # type: ignore[union-attr]

    def log_lengths(self, log_ids: Sequence[UUID]) -> dict[UUID, int]:
        """{log id: its last stored version} for those of ``log_ids`` that have events (a backend
        asks for all of them at once)."""
        found = {}
        for log_id in log_ids:
            newest = self.recorder.select_events(log_id, desc=True, limit=1)
            if newest:
                found[log_id] = newest[0].originator_version
        return found

    def log_batch(self, log_ids: Sequence[UUID]) -> LogBatch:
        """Whole logs at once: each one's stored events, snapshots, event-id claims and catalog
        row (a backend reads each kind for all of them in one query; a log without rows has empty
        ones)."""
        return LogBatch({i: list(self.recorder.select_events(i)) for i in log_ids},
                        {i: list(self.stored_snapshots(i)) for i in log_ids},
                        {i: self.recorder.select_claims(i) for i in log_ids},
                        {row.log_id: row for i in log_ids for row in self.recorder.select_catalog(log_id=i)})

    @abstractmethod
    def nearest_snapshot(self, log_id: UUID, version: int) -> SnapshotParts | None:
        """The log's latest snapshot at or before ``version``, as its version and parts."""

    def state_reads(self, log_id: UUID, version: int, mode: str, reads: Sequence[tuple[str, str, str]]) -> StateReads:
        """What time travel reads for a session at ``version``: the nearest snapshot, the events
        from it to ``version`` (one more with ``mode`` "before"), the log position the shared
        state is read at (``mode``: "event", the event's own; "before", just before the next one;
        "latest", the end of the log), the read models' positions and the (projection, fold, key)
        item views as of that position."""
        snapshot = self.nearest_snapshot(log_id, version)
        start = snapshot[0] if snapshot is not None else 0
        last = version + 1 if mode == "before" else version
        window = self.window_rows(log_id, min(start + 1, version), last)
        position: int | None = self.max_position() if mode == "latest" else None
        for row_position, row_version, _, _ in window:
            if mode == "event" and row_version == version:
                position = row_position
            elif mode == "before" and row_version == version + 1:
                # Shared state as the invocation found it: everything logged before its first
                # event, other sessions' writes since this session's previous event included.
                position = row_position - 1
        if position is None:
            return snapshot, window, None, {}, []
        positions, views = self.projection_storage().read_at(position, reads)
        return snapshot, window, position, positions, views

    # -- following the log ---------------------------------------------------------------

    def follow(self, catch_up: Callable[[], int], stop: threading.Event, poll_interval: float) -> None:
        """Calls ``catch_up`` as new events commit, until ``stop`` is set (polling, unless the
        backend can say when something was appended)."""
        while not stop.is_set():
            if not catch_up():
                stop.wait(poll_interval)
