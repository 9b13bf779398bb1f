"""The in-memory store, for tests and throwaway runs: everything in dicts, nothing to query
with, so its reads walk the recorder's own index."""

from __future__ import annotations

import threading
from typing import Any, Callable, Iterable, Sequence
from uuid import UUID

from eventsourcing.popo import POPOAggregateRecorder

from domain.errors import StoreError
from domain.session_log import SessionLog
from runtime.stores.base import LogRow, SnapshotParts, Store, WindowRow, as_uuid
from runtime.stores.memory.recorder import MemoryLogRecorder
from runtime.stores.snapshots import decode_snapshot



class MemoryStore(Store):
    def __init__(self, url: str = "memory://"):
        self.log_recorder = MemoryLogRecorder()
        self.snapshots = POPOAggregateRecorder()
        super().__init__(url, self.log_recorder, self.snapshots, threads=0)

    # -- per-store objects: shared by every service on the store -------------------------

    def _make_projection_storage(self) -> Any:
        from runtime.stores.memory.read_models import MemoryProjectionStorage

        return MemoryProjectionStorage()

    def _make_memory_index(self) -> Any:
        from runtime.stores.memory.memory_index import InMemoryIndex

        return InMemoryIndex(self.log_recorder)

    def _make_blob_store(self) -> Any:
        from runtime.stores.memory.blobs import MemoryBlobStore

        return MemoryBlobStore()

    def _make_credential_table(self) -> Any:
        from runtime.stores.credentials import DictCredentialTable

        return DictCredentialTable()

    def purge_statements(self) -> Any:
        raise StoreError("A purge removes rows from a database: it works on SQLite and PostgreSQL stores.")

    # -- raw reads -------------------------------------------------------------------------

    def log_rows(self, after: int, limit: int, upto: int | None) -> Sequence[LogRow]:
        notifications = self.recorder.select_notifications(start=after, limit=limit, stop=upto, inclusive_of_start=False)
        return [(n.id, n.originator_id, n.originator_version, n.topic, n.state) for n in notifications]

    def fork_versions(self, raw_ids: Iterable[Any]) -> dict[Any, int]:
        out = {}
        for x in dict.fromkeys(raw_ids):
            for stored in self.recorder.select_events(as_uuid(x)):
                if stored.topic == SessionLog.ForkedFrom.TOPIC:
                    out[x] = stored.originator_version
        return out

    def window_rows(self, log_id: UUID, first: int, last: int) -> Sequence[WindowRow]:
        return [(p, v, s.topic, s.state) for v, p, s in self.log_recorder.at_versions(log_id, range(first, last + 1))]

    def locate_row(self, log_id: UUID, version: int) -> tuple[int, str, bytes] | None:
        found = self.log_recorder.at_versions(log_id, [version])
        return (found[0][1], found[0][2].topic, found[0][2].state) if found else None

    def prune_snapshots(self, log_id: UUID, below: int, keep_every: int) -> None:
        # The library's in-memory recorder reads a log's snapshots through this index only
        # (tests/test_snapshot_retention.py notices if that changes).
        with self.snapshots._database_lock:
            index = self.snapshots._stored_events_index[str(log_id)]
            for version in [v for v in index if v < below and v % keep_every]:
                del index[version]

    def nearest_snapshot(self, log_id: UUID, version: int) -> SnapshotParts | None:
        rows = self.snapshots.select_events(log_id, desc=True, limit=1, lte=version)
        return decode_snapshot(self, rows[0]) if rows else None  # None too when it does not check out

    def follow(self, catch_up: Callable[[], int], stop: threading.Event, poll_interval: float) -> None:
        """Wakes on the recorder's own signal of an append."""
        appended = threading.Event()
        self.log_recorder.listen(appended)
        try:
            while not stop.is_set():
                appended.clear()
                catch_up()
                appended.wait(0.25)
        finally:
            self.log_recorder.unlisten(appended)


def open_memory_store(url: str = "memory://") -> MemoryStore:
    return MemoryStore(url)
