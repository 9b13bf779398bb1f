"""Keeping a tracked read model up to date: catch up, follow, rebuild.

A ``ProjectionFollower`` folds the store's log into one projection's rows, a batch at a time:
read the events after the projection's position, fold them into the views they touch (kept in
a cache; missing ones loaded in one query), then write the changed rows and the new position
in one transaction that succeeds only if the position (and the epoch, which counts rebuilds)
has not moved meanwhile. So a batch is applied exactly once, even with several runners on one
projection (another process, a killed worker restarted while its successor runs): the loser
drops its cache and carries on from wherever the winner left the rows. The cyclic garbage
collector is paused while a batch is read, folded, written and dropped (``runtime.gc_pause``:
decoded events hold no cycles, yet the collections their allocations trigger took a quarter of
a rebuild's time).

* ``catch_up()`` folds everything up to the end of the log, now, in the calling thread (the
  inline mode — SQLite and memory stores, tests, tools).
* ``follow(stop)`` keeps catching up as events commit, woken the way the store can say that
  something was appended (``Store.follow``: LISTEN/NOTIFY, a listener, or polling).
* ``rebuild()`` drops the rows and refolds from the start of the log.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Any, Sequence

from eventsourcing.persistence import InterfaceError, OperationalError

from projections.base import Fold, Projection, ViewId
from projections.log_event import LogEvent
from runtime.gc_pause import gc_paused
from runtime.read_models.source import LogSource
from runtime.stores.projection_storage import Batch, PositionMoved, ProjectionStorage, compact_json as _dumps
from runtime.stores import Store

log = logging.getLogger("chronicle.projections")


class _Ahead:
    """A function called in a thread of its own: the next batch fetched while one is folded."""

    def __init__(self, fn: Any, *args: Any):
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn, args), name="projection-fetch", daemon=True)
        self._thread.start()

    def _run(self, fn: Any, args: tuple[Any, ...]) -> None:
        try:
            self._value = fn(*args)
        except BaseException as e:  # noqa: BLE001 - raised where the result is taken
            self._error = e

    def result(self) -> Any:
        self._thread.join()
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        value, self._value = self._value, None
        return value

    def discard(self) -> None:
        """Waits for the thread (it holds a database connection) and drops what it read."""
        self._thread.join()
        self._value = self._error = None


class ItemDict(dict):  # type: ignore[type-arg]
    """A dict that notes which entries a fold set (True) or removed (False)."""

    __slots__ = ("changed",)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.changed: dict[str, bool] = {}

    def __setitem__(self, key: str, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self.changed[key] = True

    def update(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return dict.__getitem__(self, key)

    def __delitem__(self, key: str) -> None:
        dict.__delitem__(self, key)
        self.changed[key] = False

    def pop(self, key: str, *default: Any) -> Any:
        if key in self:
            self.changed[key] = False
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[str, Any]:
        key, value = dict.popitem(self)
        self.changed[key] = False
        return key, value

    def clear(self) -> None:
        for key in self:
            self.changed[key] = False
        dict.clear(self)


class ProjectionFollower:
    """Folds a store's log into one projection's tracked rows (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        projection: Projection,
        *,
        batch_size: int = 10_000,
        cache_size: int = 100_000,
        poll_interval: float = 0.05,
    ):
        self.store = store
        self.projection = projection
        self.name = projection.name
        self.storage: ProjectionStorage = store.projection_storage()
        self.source = LogSource(store)
        self.batch_size = batch_size
        self.cache_size = cache_size
        self.poll_interval = poll_interval
        self._lock = threading.RLock()
        self._cache: OrderedDict[ViewId, Any] = OrderedDict()
        self._cache_position: int | None = None  # the position the cached views reflect
        self._cache_epoch: int | None = None  # and the epoch of the rows (drops so far)
        self._cache_complete = False  # every stored view is in the cache (no need to load)
        self._folds = {f.name: f for f in projection.folds}
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.error: BaseException | None = None

    # -- positions ----------------------------------------------------------------------

    def position(self) -> int:
        """How far into the log the stored rows reflect."""
        return self.storage.position(self.name)

    def lag(self) -> int:
        """Stored events not folded yet."""
        return max(self.source.max_position() - self.position(), 0)

    def wait(self, position: int, timeout: float = 5.0) -> None:
        """Blocks until the rows reflect the log up to ``position`` (TimeoutError otherwise)."""
        self.storage.wait(self.name, position, timeout=timeout)

    # -- catching up --------------------------------------------------------------------

    def catch_up(self, upto: int | None = None) -> int:
        """Folds every event after the stored position (up to ``upto``); returns how many."""
        folded = 0
        with self._lock:
            position, epoch = self.storage.state(self.name)
            if (position, epoch) != (self._cache_position, self._cache_epoch):
                self._reset(position, epoch)
            ahead: _Ahead | None = None  # the next batch's rows, being fetched meanwhile
            try:
                while upto is None or position < upto:
                    with gc_paused():
                        fetched = ahead.result() if ahead is not None else self.source.fetch(position, self.batch_size, upto)
                        ahead = None
                        rows = fetched[0]
                        if not rows:
                            break
                        last = rows[-1][0]
                        if self.source.prefetches and len(rows) == self.batch_size and (upto is None or last < upto):
                            ahead = _Ahead(self.source.fetch, last, self.batch_size, upto)
                        n, moved = self._apply(position, epoch, fetched)
                        del fetched, rows
                    if moved is not None:
                        # Someone else applied these events, or dropped the rows: start again
                        # from where they left them.
                        if ahead is not None:
                            ahead.discard()
                            ahead = None
                        position, epoch = moved
                        continue
                    folded += n
                    position = last
            finally:
                if ahead is not None:
                    ahead.discard()
        return folded

    def _apply(self, position: int, epoch: int, fetched: Any) -> tuple[int, tuple[int, int] | None]:
        """Decodes, folds and commits one batch of rows (fetched after ``position``): returns how
        many events it folded, and the stored (position, epoch) if someone else moved the
        position meanwhile (then nothing was written)."""
        events, last = self.source.decode_rows(*fetched, after=position)
        try:
            batch = self._fold(events)
            self.storage.commit(self.name, position, last, batch, epoch)
        except PositionMoved:
            moved = self.storage.state(self.name)
            self._reset(*moved)
            return 0, moved
        except BaseException:
            self._reset(None)
            raise
        self._cache_position = last
        n = len(events)
        del events, batch  # freed here, inside the gc pause
        self._trim()
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s: folded %d events up to %d", self.name, n, last)
        return n, None

    async def catch_up_async(self, upto: int | None = None) -> int:
        return await self.store.call(self.catch_up, upto)

    def rebuild(self) -> int:
        """Drops the projection's rows and folds the whole log again; returns events folded."""
        with self._lock:
            self.storage.drop(self.name)
            return self.catch_up()

    async def rebuild_async(self) -> int:
        return await self.store.call(self.rebuild)

    def _reset(self, position: int | None, epoch: int | None = None) -> None:
        self._cache.clear()
        self._cache_position = position
        self._cache_epoch = epoch
        # At position 0 nothing is stored: views not in the cache do not exist yet.
        self._cache_complete = position == 0

    def _trim(self) -> None:
        cache = self._cache
        if len(cache) > self.cache_size:
            for _ in range(len(cache) - self.cache_size * 3 // 4):
                cache.popitem(last=False)
            self._cache_complete = False

    def _fold(self, events: Sequence[LogEvent]) -> Batch:
        """Folds a batch into the cached views; returns the rows to write.

        One fold at a time over the whole batch (folds are independent: each has its own views),
        so the loop is short, and consecutive events of one view (a session's turn) look it up once.
        """
        self._load_missing(events)
        batch = Batch()
        for f in self.projection.folds:
            if f.items:
                self._fold_items(f, events, batch)
            else:
                self._fold_whole(f, events, batch)
        return batch

    def _fold_items(self, f: Fold[Any], events: Sequence[LogEvent], batch: Batch) -> None:
        cache, name, key_of, fold = self._cache, f.name, f.key, f.fold
        cached = cache.get
        history, items = batch.history, batch.items
        view: Any = None
        last_key = None
        for event in events:
            key = key_of(event)
            if key is None:
                continue
            if key != last_key:
                view_id = (name, key)
                view = cached(view_id)
                if view is None:
                    view = cache[view_id] = ItemDict()
                last_key = key
            if fold(view, event) is not view:
                raise TypeError(
                    f"Fold {name!r} is declared items=True: it must update the dict it is given"
                    " and return it, not a new one"
                )
            changed = view.changed
            if changed:
                writer = (event.session_key, event.version, event.event_id, event.author)
                position = event.position
                for item, present in changed.items():
                    value = _dumps(view[item]) if present else None
                    items[(name, key, item)] = value
                    history[(name, key, item, position)] = (value, *writer)
                changed.clear()

    def _fold_whole(self, f: Fold[Any], events: Sequence[LogEvent], batch: Batch) -> None:
        cache, name, key_of, fold, initial = self._cache, f.name, f.key, f.fold, f.initial
        cached = cache.get
        dirty: dict[ViewId, None] = {}
        view: Any = None
        view_id: Any = None
        last_key = None
        for event in events:
            key = key_of(event)
            if key is None:
                continue
            if key != last_key:
                view_id = (name, key)
                view = cached(view_id)
                if view is None:
                    view = cache[view_id] = initial()
                dirty[view_id] = None
                last_key = key
            new = fold(view, event)
            if new is not view:
                view = cache[view_id] = new
        for view_id in dirty:
            batch.views[view_id] = _dumps(f.encode(cache[view_id]))
        if f.search is not None:
            search, order = f.search, f.search_order
            batch.search.update((view_id, (search(cache[view_id]), order(cache[view_id]))) for view_id in dirty)

    def _load_missing(self, events: Sequence[LogEvent]) -> None:
        if self._cache_complete:
            return
        cache = self._cache
        missing: dict[str, dict[str, None]] = {}
        for event in events:
            for f in self.projection.folds:
                key = f.key(event)
                if key is not None and (f.name, key) not in cache:
                    missing.setdefault(f.name, {})[key] = None
        for fold_name, keys in missing.items():
            f = self._folds[fold_name]
            if f.items:
                for key, entries in self.storage.load_items(self.name, fold_name, list(keys)).items():
                    view = ItemDict(entries)
                    cache[(fold_name, key)] = view
            else:
                for key, data in self.storage.load_views(self.name, fold_name, list(keys)).items():
                    cache[(fold_name, key)] = f.decode(data)

    # -- reading the rows ---------------------------------------------------------------

    def view(self, key: str, fold: str | None = None) -> Any:
        """One stored view, decoded (the fold's initial view when nothing was folded into it)."""
        found = self.find(key, fold)
        return self.projection.fold_named(fold).initial() if found is None else found

    def find(self, key: str, fold: str | None = None) -> Any:
        """One stored view, decoded, or None when nothing was folded into it (one key read)."""
        f = self.projection.fold_named(fold)
        if f.items:
            return self.storage.load_items(self.name, f.name, [key]).get(key)
        data = self.storage.load_views(self.name, f.name, [key]).get(key)
        return None if data is None else f.decode(data)

    def views(self, fold: str | None = None) -> dict[ViewId, Any]:
        """Every stored view of the projection (or of one of its folds), decoded."""
        out: dict[ViewId, Any] = {}
        for f in self.projection.folds:
            if fold is not None and f.name != fold:
                continue
            if f.items:
                out.update(self.storage.read_items(self.name, f.name))
            else:
                out.update({vid: f.decode(v) for vid, v in self.storage.read_views(self.name, f.name).items()})
        return out

    def rows(self) -> dict[str, Any]:
        """Every stored row, as JSON values: what two runs must agree on exactly."""
        return {
            "views": sorted([f, k, v] for (f, k), v in self.storage.read_views(self.name).items()),
            "items": sorted([f, k, v] for (f, k), v in self.storage.read_items(self.name).items()),
            "history": [list(row) for row in self.storage.read_history(self.name)],
        }

    # -- following ----------------------------------------------------------------------

    def follow(self, stop: threading.Event) -> None:
        """Catches up, then keeps catching up as new events commit, until ``stop`` is set."""
        while not stop.is_set():
            try:
                self.store.follow(self.catch_up, stop, self.poll_interval)
            except (OperationalError, InterfaceError) as e:  # the database went away: retry
                log.warning("projection %s: %s; retrying in 1 s", self.name, e)
                stop.wait(1.0)

    def start(self) -> ProjectionFollower:
        """Follows the log in a background thread until ``stop()``."""
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name=f"projection-{self.name}", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self.follow(self._stop)
        except BaseException as e:  # noqa: BLE001 - kept for whoever stops the runner
            self.error = e
            log.exception("projection %s stopped", self.name)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self.error is not None:
            error, self.error = self.error, None
            raise error

    def __enter__(self) -> ProjectionFollower:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# -- one runner per (store, projection) ----------------------------------------------------

def runner_for(store: Store, projection: Projection, **options: Any) -> ProjectionFollower:
    """The runner of ``projection`` on ``store`` in this process (shared, so one cache)."""
    runner = store.owned(f"projection runner {projection.name}", lambda: ProjectionFollower(store, projection, **options))
    if runner.projection.folds != projection.folds:
        raise ValueError(f"A different projection named {projection.name!r} already runs on this store")
    return runner
