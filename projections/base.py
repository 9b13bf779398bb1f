"""A projection: one or more pure folds over the log, and where each event's view lives.

A ``Fold`` says how one event changes one view (``fold(view, event) -> view``), which view an
event belongs to (``key(event)``: an app, a user, a session, or ``None`` to skip it) and what an
empty view is. A ``Projection`` names one or more folds; it is what a tracked read model
stores, a runner keeps up to date and ``rebuild`` refolds. Writing a new one takes a name and
a function::

    def tool_calls(view: dict, event: LogEvent) -> dict:
        for call in event.function_calls():
            view[call["name"]] = view.get(call["name"], 0) + 1
        return view

    TOOL_CALLS = Projection("tool_calls", tool_calls)          # one view per app by default

Folds must be deterministic functions of the events they are given (no clock, no I/O, no
randomness): that is what makes a rebuild equal the live view. For speed a fold may update the
view it is given in place and return it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Iterable, Mapping, TypeVar

from projections.log_event import LogEvent

V = TypeVar("V")

Key = Callable[[LogEvent], "str | None"]


def by_app(event: LogEvent) -> str:
    return event.app_name


def by_user(event: LogEvent) -> str:
    return event.user_key


def by_session(event: LogEvent) -> str:
    return event.session_key


def whole_log(event: LogEvent) -> str:
    return "*"


def _same(value: Any) -> Any:
    return value


def _unordered(view: Any) -> float:
    return 0.0  # by key alone


@dataclass(frozen=True)
class Fold(Generic[V]):
    """One pure fold and how its views are keyed.

    ``items=True`` declares a view that is a dict of JSON values whose top-level entries the
    fold only sets (as the state and artifact folds do): a tracked read model then stores it
    entry by entry, and keeps every entry's history for time travel. Otherwise the view is
    stored whole, as the JSON ``encode`` makes of it (``decode`` reads it back). A view stored
    whole may also be searched where it is stored: ``search`` gives the text a search looks
    through and ``search_order`` where the view comes in a search's answer, lowest first, then
    by key (both stored beside the view; ``ProjectionStorage.search`` answers a page at a time).
    """

    name: str
    fold: Callable[[V, LogEvent], V]
    key: Key = by_app
    initial: Callable[[], V] = dict  # type: ignore[assignment]
    items: bool = False
    encode: Callable[[V], Any] = _same
    decode: Callable[[Any], V] = _same
    search: Callable[[V], str] | None = None
    search_order: Callable[[V], float] = _unordered

    def __post_init__(self) -> None:
        if self.items and self.search is not None:
            raise ValueError(f"Fold {self.name!r}: only a view stored whole can be searched (items=False)")


@dataclass(frozen=True, init=False)
class Projection:
    """A named set of folds: the unit that is stored, tracked, caught up and rebuilt.

    ``Projection(name, fold)`` makes a one-fold projection (views keyed by ``key``, one per app
    unless told otherwise); ``Projection(name, folds=[...])`` groups several.
    """

    name: str
    folds: tuple[Fold[Any], ...] = field(default=())

    def __init__(
        self,
        name: str,
        fold: Callable[[Any, LogEvent], Any] | None = None,
        *,
        key: Key = by_app,
        initial: Callable[[], Any] = dict,
        encode: Callable[[Any], Any] = _same,
        decode: Callable[[Any], Any] = _same,
        folds: Iterable[Fold[Any]] = (),
    ):
        if not name or not name.replace("_", "a").replace("-", "a").replace(".", "a").isalnum():
            raise ValueError(f"Projection name {name!r}: use letters, digits, '_', '-' or '.'")
        all_folds = list(folds)
        if fold is not None:
            all_folds.insert(0, Fold(name, fold, key, initial, False, encode, decode))
        if not all_folds:
            raise ValueError(f"Projection {name!r} needs a fold function (or folds=[...])")
        names = [f.name for f in all_folds]
        if len(set(names)) != len(names):
            raise ValueError(f"Projection {name!r} has two folds with one name: {names}")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "folds", tuple(all_folds))

    def fold_named(self, name: str | None = None) -> Fold[Any]:
        if name is None:
            return self.folds[0]
        for f in self.folds:
            if f.name == name:
                return f
        raise KeyError(f"Projection {self.name!r} has no fold {name!r} (it has {[f.name for f in self.folds]})")


ViewId = tuple[str, str]  # (fold name, key)


def fold_events(
    projection: Projection, events: Iterable[LogEvent], views: dict[ViewId, Any] | None = None
) -> dict[ViewId, Any]:
    """Folds events into a projection's views, in memory: ``{(fold name, key): view}``.

    This is the reference a tracked read model must equal, and what tests compare against.
    """
    views = {} if views is None else views
    folds = projection.folds
    for event in events:
        for f in folds:
            key = f.key(event)
            if key is None:
                continue
            view_id = (f.name, key)
            view = views.get(view_id)
            if view is None:
                view = f.initial()
            views[view_id] = f.fold(view, event)
    return views


def fold_one(fold: Fold[V], events: Iterable[LogEvent], key: str) -> V:
    """The view ``key`` of one fold, folded from ``events`` (events of other keys are skipped)."""
    view = fold.initial()
    for event in events:
        if fold.key(event) == key:
            view = fold.fold(view, event)
    return view


def encoded(projection: Projection, views: Mapping[ViewId, Any]) -> dict[ViewId, Any]:
    """Views as JSON-ready values (what a read model stores), for comparisons."""
    by_name = {f.name: f for f in projection.folds}
    return {vid: by_name[vid[0]].encode(view) for vid, view in views.items()}
