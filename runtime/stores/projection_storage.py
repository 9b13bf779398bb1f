"""Where tracked read models keep their rows, next to the log, in every kind of store.

Four tables per store, shared by all projections (the projection's name is a column):

* ``views``   — (projection, fold, key) -> the view as JSON, for folds stored whole;
* ``items``   — (projection, fold, key, item) -> JSON value, for folds stored entry by entry
                (state, artifact versions); a removed entry keeps its row, marked removed;
* ``search``  — (projection, fold, key) -> the text a search looks through and the view's place in
                a search's answer, for the folds that declare one (``Fold.search``,
                ``Fold.search_order``), written with their views;
* ``history`` — every write to an entry: (projection, fold, key, item, position) -> value,
                with the session, version, event id and author that wrote it (time travel).

and eventsourcing's tracking table, one row per projection: the position in the log (the
notification id) the rows reflect — plus a second row counting the projection's drops (its
epoch). ``commit`` writes a batch of rows *and* moves that position in one transaction, and only
if position and epoch are still the ones the batch was folded from (compare-and-set): a batch
is applied exactly once, whoever else is catching up at the same time, and a runner whose
cache predates a rebuild cannot write over it. Each store package implements this interface
(its ``read_models`` module) on eventsourcing's tracking recorder of its backend.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

if TYPE_CHECKING:
    from runtime.stores.base import Store

ViewId = tuple[str, str]  # (fold, key)
SearchMark = tuple[float, str]  # (search order, key): where a view comes in a search's answer
START: SearchMark = (float("-inf"), "")  # before every view


class PositionMoved(Exception):
    """The projection's position changed since the batch was folded (someone else applied it)."""


class HistoryRow(NamedTuple):
    fold: str
    key: str
    item: str
    position: int
    value: Any  # decoded JSON; None when removed
    removed: bool
    session: str  # app/user/session of the writing event
    version: int
    event_id: str
    author: str


@dataclass
class Batch:
    """What one commit writes for one projection (values as JSON text)."""

    views: dict[ViewId, str] = field(default_factory=dict)
    search: dict[ViewId, tuple[str, float]] = field(default_factory=dict)  # (searched text, order) of views that have one
    items: dict[tuple[str, str, str], str | None] = field(default_factory=dict)  # None: removed
    history: dict[tuple[str, str, str, int], tuple[str | None, str, int, str, str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.views or self.items or self.history)

    def item_rows(self) -> list[tuple[str, str, str, str | None, bool]]:
        return [(f, k, i, v, v is None) for (f, k, i), v in self.items.items()]

    def history_rows(self) -> list[tuple[Any, ...]]:
        return [(f, k, i, p, v, v is None, s, ver, e, a) for (f, k, i, p), (v, s, ver, e, a) in self.history.items()]


class ProjectionStorage(ABC):
    """The read-model tables of one store."""

    @abstractmethod
    def position(self, name: str) -> int:
        """Where the projection's rows stand in the log (0: nothing folded)."""

    @abstractmethod
    def state(self, name: str) -> tuple[int, int]:
        """(position, epoch): the epoch counts the drops, so a runner whose cache predates a
        rebuild notices even when the rebuild has come back to the same position."""

    @abstractmethod
    def commit(self, name: str, expected: int, new: int, batch: Batch, epoch: int = 0) -> None:
        """Writes the batch and moves the position from ``expected`` to ``new``, atomically.

        Raises PositionMoved (and writes nothing) when the position is not ``expected`` or the
        rows were dropped since ``epoch``.
        """

    @abstractmethod
    def drop(self, name: str) -> None:
        """Deletes the projection's rows, sets its position to 0 and starts a new epoch, atomically."""

    @abstractmethod
    def load_views(self, name: str, fold: str, keys: Sequence[str]) -> dict[str, Any]: ...

    @abstractmethod
    def load_items(self, name: str, fold: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Current (not removed) entries of the given keys' item views."""

    @abstractmethod
    def read_views(self, name: str, fold: str | None = None) -> dict[ViewId, Any]: ...

    @abstractmethod
    def search(self, name: str, fold: str, text: str, keys: Sequence[str] | None = None, *,
               after: SearchMark | None = None, limit: int) -> list[SearchMark]:
        """A page of the views (among ``keys``; None: all) whose searched text holds ``text``
        (exactly, as ``in`` finds it: the caller lowers both sides), as of the projection's
        position: the first ``limit`` of them in search order (``Fold.search_order``, then key)
        that come after ``after`` (the previous page's last mark), as (order, key) marks.
        It costs the page, not every match: a store reads the texts in that order (an index)
        and stops at the page's end, or, when the text is rare, finds it through a text index."""

    @abstractmethod
    def read_items(self, name: str, fold: str | None = None) -> dict[ViewId, dict[str, Any]]: ...

    @abstractmethod
    def items_at(self, name: str, fold: str, key: str, position: int) -> dict[str, Any]:
        """The entries of one item view as they were once the log up to ``position`` was folded."""

    def read_at(self, position: int, reads: Sequence[tuple[str, str, str]]) -> tuple[dict[str, int], list[dict[str, Any]]]:
        """The positions of the projections read, and each (projection, fold, key) item view as of
        ``position`` — in one round trip where the store allows."""
        positions = {name: self.position(name) for name in dict.fromkeys(r[0] for r in reads)}
        return positions, [self.items_at(name, fold, key, position) for name, fold, key in reads]

    @abstractmethod
    def read_history(
        self, name: str, fold: str | None = None, key: str | None = None, *, after: int = 0, upto: int | None = None
    ) -> list[HistoryRow]:
        """Writes to item views with after < position <= upto, in log order."""

    @abstractmethod
    def names(self) -> list[str]:
        """Projections that have a position here."""

    def wait(self, name: str, position: int, timeout: float = 5.0) -> None:
        """Blocks until the projection has folded the log up to ``position`` (TimeoutError)."""
        self.tracking.wait(name, position, timeout=timeout)  # type: ignore[attr-defined]


EPOCH_SUFFIX = "#epoch"  # the tracking row of a projection's epoch is named after it, with this suffix


def compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def storage_for(store: Store) -> ProjectionStorage:
    """The read-model tables of a store (created on first use; one object per store)."""
    return store.projection_storage()
