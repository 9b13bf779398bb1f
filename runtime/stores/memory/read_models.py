"""Read-model rows and positions for in-memory stores (the interface: runtime/stores/projection_storage.py)."""

from __future__ import annotations

import heapq
import json
from bisect import bisect_right, insort
from itertools import islice
from typing import Any, Sequence

from eventsourcing.persistence import Tracking
from eventsourcing.popo import POPOTrackingRecorder

from runtime.stores.projection_storage import (
    EPOCH_SUFFIX,
    Batch,
    HistoryRow,
    PositionMoved,
    ProjectionStorage,
    SearchMark,
    START,
    ViewId,
)


class MemoryProjectionStorage(POPOTrackingRecorder, ProjectionStorage):
    """Rows in dicts (values kept as JSON text, as a database would), under the recorder's lock."""

    def __init__(self) -> None:
        super().__init__()
        self.tracking = self
        self._views: dict[str, dict[ViewId, str]] = {}
        self._search: dict[str, dict[ViewId, tuple[str, float]]] = {}  # (text, order)
        self._search_order: dict[tuple[str, str], list[SearchMark]] = {}  # (name, fold) -> its marks, sorted
        self._items: dict[str, dict[ViewId, dict[str, str | None]]] = {}
        self._history: dict[str, list[tuple[Any, ...]]] = {}

    def create_table(self) -> None:
        pass

    def position(self, name: str) -> int:
        return self.max_tracking_id(name) or 0

    def state(self, name: str) -> tuple[int, int]:
        with self._database_lock:
            return self._max_tracking_ids[name] or 0, self._max_tracking_ids[name + EPOCH_SUFFIX] or 0

    def commit(self, name: str, expected: int, new: int, batch: Batch, epoch: int = 0) -> None:
        with self._database_lock:
            if (self._max_tracking_ids[name] or 0, self._max_tracking_ids[name + EPOCH_SUFFIX] or 0) != (expected, epoch):
                raise PositionMoved(name)
            views = self._views.setdefault(name, {})
            views.update(batch.views)
            self._write_search(name, batch.search)
            items = self._items.setdefault(name, {})
            for (f, k, i), v in batch.items.items():
                items.setdefault((f, k), {})[i] = v
            self._history.setdefault(name, []).extend(batch.history_rows())
            self._insert_tracking(Tracking(name, new))

    def drop(self, name: str) -> None:
        with self._database_lock:
            self._views.pop(name, None)
            self._search.pop(name, None)
            for fold in [f for n, f in self._search_order if n == name]:
                del self._search_order[(name, fold)]
            self._items.pop(name, None)
            self._history.pop(name, None)
            self._max_tracking_ids[name] = 0
            self._max_tracking_ids[name + EPOCH_SUFFIX] = (self._max_tracking_ids[name + EPOCH_SUFFIX] or 0) + 1

    def load_views(self, name: str, fold: str, keys: Sequence[str]) -> dict[str, Any]:
        with self._database_lock:
            views = self._views.get(name, {})
            return {k: json.loads(views[(fold, k)]) for k in keys if (fold, k) in views}

    def _write_search(self, name: str, written: dict[ViewId, tuple[str, float]]) -> None:
        """Stores the texts and keeps each fold's marks in search order (as a database's index would)."""
        rows = self._search.setdefault(name, {})
        for (fold, key), (text, order) in written.items():
            marks = self._search_order.setdefault((name, fold), [])
            old = rows.get((fold, key))
            if old is None or old[1] != order:
                if old is not None:
                    del marks[bisect_right(marks, (old[1], key)) - 1]
                insort(marks, (order, key))
            rows[(fold, key)] = (text, order)

    def search(self, name: str, fold: str, text: str, keys: Sequence[str] | None = None, *,
               after: SearchMark | None = None, limit: int) -> list[SearchMark]:
        after = after or START
        with self._database_lock:
            rows = self._search.get(name, {})
            if keys is not None:  # the keys' rows, sorted
                found = ((rows[(fold, k)][1], k) for k in keys if (fold, k) in rows and text in rows[(fold, k)][0])
                return heapq.nsmallest(limit, (mark for mark in found if mark > after))
            marks = self._search_order.get((name, fold), [])
            # in order from the cursor, until the page is full
            hits = (mark for mark in islice(marks, bisect_right(marks, after), None) if text in rows[(fold, mark[1])][0])
            return list(islice(hits, limit))

    def load_items(self, name: str, fold: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        with self._database_lock:
            items = self._items.get(name, {})
            out = {
                k: {i: json.loads(v) for i, v in items[(fold, k)].items() if v is not None}
                for k in keys
                if (fold, k) in items
            }
        return {k: entries for k, entries in out.items() if entries}

    def read_views(self, name: str, fold: str | None = None) -> dict[ViewId, Any]:
        with self._database_lock:
            return {vid: json.loads(v) for vid, v in self._views.get(name, {}).items() if fold in (None, vid[0])}

    def read_items(self, name: str, fold: str | None = None) -> dict[ViewId, dict[str, Any]]:
        with self._database_lock:
            out = {
                vid: {i: json.loads(v) for i, v in entries.items() if v is not None}
                for vid, entries in self._items.get(name, {}).items()
                if fold in (None, vid[0])
            }
        return {vid: entries for vid, entries in out.items() if entries}

    def items_at(self, name: str, fold: str, key: str, position: int) -> dict[str, Any]:
        with self._database_lock:
            rows = [r for r in self._history.get(name, ()) if r[0] == fold and r[1] == key and r[3] <= position]
        latest: dict[str, tuple[Any, ...]] = {}
        for r in rows:  # appended in log order
            latest[r[2]] = r
        return {i: json.loads(r[4]) for i, r in latest.items() if not r[5]}

    def read_history(
        self, name: str, fold: str | None = None, key: str | None = None, *, after: int = 0, upto: int | None = None
    ) -> list[HistoryRow]:
        with self._database_lock:
            rows = list(self._history.get(name, ()))
        return sorted(
            (
                HistoryRow(r[0], r[1], r[2], r[3], None if r[4] is None else json.loads(r[4]), *r[5:])
                for r in rows
                if fold in (None, r[0]) and key in (None, r[1]) and r[3] > after and (upto is None or r[3] <= upto)
            ),
            key=lambda r: (r.position, r.fold, r.key, r.item),
        )

    def names(self) -> list[str]:
        with self._database_lock:
            return sorted(
                n for n, p in self._max_tracking_ids.items()
                if p is not None and n != "__migration__" and not n.endswith(EPOCH_SUFFIX)
            )


# -- SQLite --------------------------------------------------------------------------------
