"""The sessions page's read model: every session's summary (``projections.session_summary``), folded
once and followed, searched and paged without reading any session's log.

The summaries are a tracked projection (``SESSION_SUMMARIES``): stored next to the log with their
position, so a process starting on a big store loads them in one query instead of folding the
whole log. A ``SessionIndex`` then keeps them in memory and follows the log from that position on
each query (whatever another process appended: positions, not notifications, say what is new), and
reloads them when the stored rows were rebuilt or purged (the projection's epoch moved).

The searched texts (the projection's second fold: the session id and up to 4,000 characters) are
not held in memory: the store searches its stored rows a page at a time, in the page's order
(each text is stored with its session's), among the sessions the other filters leave when they
are few, so a search costs its page, not every session that holds the text.

Pages are keyset-paginated, newest update first: a page's cursor names the last session it gave,
and the next page starts after it, whatever was appended meanwhile.
"""

from __future__ import annotations

import base64
import heapq
import json
import threading
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Collection, Iterator, Sequence

from domain.errors import InvalidArgumentError
from projections.pending import PendingRequest, new_pending_log, pending_of_log
from projections.session_summary import (
    SESSION_SUMMARIES, SUMMARIES, TEXTS, fold_summary, fold_texts, new_summary, new_texts, searched_text,
)
from runtime.read_models.follower import runner_for
from runtime.read_models.source import LogSource
from runtime.stores import Store

_Recent = dict[str, dict[str, Any]]  # session key -> its texts view, folded beyond the stored rows
_Mark = tuple[float, str]  # (-updated, key): a session's place in page order (the texts' search order)
STATUSES = ("waiting", "rewound", "forked", "forked_into", "deleted")
_NAME = SESSION_SUMMARIES.name
_BATCH = 10_000
_MATCH_READ = 50  # texts views a page's matches are read from at once
_SEARCH_READ = 1_000  # marks a search reads from the store at once, at most, when filters leave many out


@dataclass(frozen=True)
class SessionQuery:
    """Which sessions a page shows: all given filters hold (None: any)."""

    app_name: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    users: Collection[str] | None = None  # the users the caller may see (None: every user)
    text: str = ""  # case-insensitive, in the session id or its searched texts
    since: float | None = None  # updated at or after
    until: float | None = None  # created before
    status: str | None = None
    limit: int = 200
    after: str | None = None  # the previous page's cursor

    def __post_init__(self) -> None:
        if self.status is not None and self.status not in STATUSES:
            raise InvalidArgumentError(f"status must be one of {', '.join(STATUSES)}, got {self.status!r}.")
        if self.limit < 1:
            raise InvalidArgumentError(f"limit must be at least 1, got {self.limit}.")


def _mark(cursor: str) -> _Mark:
    """Where a cursor stands in page order: (-updated, key), as the store's search order has it."""
    updated, key = decode_cursor(cursor)
    return -updated, key


def _first_match(texts: dict[str, Any], text: str) -> str:
    """The first of a texts view's texts that holds ``text`` (lower case), cut."""
    return next((t[:160] for t in texts["texts"] if text in t.lower()), "")


def _older_than_asked(mark: _Mark, query: SessionQuery) -> bool:
    """Whether the session at ``mark``, and so every one after it in page order, was last
    updated before the query's ``since``."""
    return query.since is not None and -mark[0] < query.since


def encode_cursor(updated: float, key: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([updated, key]).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[float, str]:
    try:
        updated, key = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        return float(updated), str(key)
    except (ValueError, TypeError):
        raise InvalidArgumentError(f"after must be a cursor a previous page gave, got {cursor!r}.") from None


class SessionIndex:
    """Every session's summary, in memory, following the store's log (see the module docstring).

    Beside the summaries it keeps what makes a query cost its answer rather than the store: the
    sessions of each app and of each user, and those of each status, so a filter reads only the
    sessions it finds. The searched texts stay in the store, which searches them a page at a
    time (``_search_page``).
    """

    def __init__(self, store: Store):
        self.store = store
        self.follower = runner_for(store, SESSION_SUMMARIES)
        self.source = LogSource(store)
        self._lock = threading.RLock()
        self._position: int | None = None
        self._epoch: int | None = None
        self._clear()

    def _clear(self) -> None:
        self._views: dict[str, dict[str, Any]] = {}
        self._pending: dict[str, int] = {}  # key -> open requests (0 once deleted)
        self._forks: dict[str, list[str]] = {}  # source key -> its forks' session ids
        self._by_app: dict[str, set[str]] = {}
        self._by_user: dict[str, set[str]] = {}
        self._by_id: dict[str, set[str]] = {}  # session id -> its keys (one per app and user using it)
        self._by_status: dict[str, set[str]] = {status: set() for status in STATUSES}
        self._order: list[_Mark] | None = None  # sorted

    @staticmethod
    def of(store: Store) -> SessionIndex:
        """The store's index in this process (one per store)."""
        return store.owned("session index", lambda: SessionIndex(store))

    # -- following the log ---------------------------------------------------------------

    def refresh(self) -> None:
        """Takes in whatever the log holds beyond the index's position."""
        with self._lock:
            _, epoch = self._stored_state()
            if self._position is None or epoch != self._epoch:
                self._load()
            while True:
                events, last = self.source.read(self._position, _BATCH)
                if last == self._position:
                    break
                changed: dict[str, None] = {}
                for event in events:
                    key = event.session_key
                    view = self._views.get(key)
                    if view is None:
                        view = self._views[key] = new_summary()
                    fold_summary(view, event)
                    changed[key] = None
                self._position = last
                for key in changed:
                    self._note(key)
                if changed:
                    self._order = None

    def _stored_state(self) -> tuple[int, int]:
        return self.store.read_if_made(lambda: self.follower.storage.state(_NAME), (0, 0))

    def _load(self) -> None:
        """The stored summaries (caught up first, unless the store is read-only: then the index
        folds in memory what they lack) and the position they reflect, read consistently."""
        if not self.store.read_only:
            self.follower.catch_up()
        storage = self.follower.storage
        while True:
            before = self._stored_state()
            views = self.store.read_if_made(lambda: storage.read_views(_NAME, SUMMARIES), {})
            if self._stored_state() == before:
                break
        self._clear()
        self._views.update((key, view) for (_, key), view in views.items())
        self._position, self._epoch = before
        for key in self._views:
            self._note(key)

    def _note(self, key: str) -> None:
        """Refreshes what queries read of one summary besides the view."""
        view = self._views[key]
        self._by_app.setdefault(view["app_name"], set()).add(key)
        self._by_user.setdefault(view["user_id"], set()).add(key)
        self._by_id.setdefault(view["session_id"], set()).add(key)
        self._pending[key] = 0 if view["deleted"] else len(pending_of_log(view["pending"]))
        source = (view["forked_from"] or {}).get("source_session_id")
        if source:
            source_key = f"{view['app_name']}/{view['user_id']}/{source}"
            forks = self._forks.setdefault(source_key, [])
            if view["session_id"] not in forks:
                forks.append(view["session_id"])
            self._by_status["forked_into"].add(source_key)
        for status, on in (("waiting", self._pending[key]), ("rewound", view["rewinds"]),
                           ("forked", view["forked_from"]), ("deleted", view["deleted"])):
            (self._by_status[status].add if on else self._by_status[status].discard)(key)

    # -- reading ---------------------------------------------------------------------------

    def summary(self, app_name: str, user_id: str, session_id: str) -> dict[str, Any] | None:
        """One session's summary as a page shows it (None: no such session)."""
        self.refresh()
        key = f"{app_name}/{user_id}/{session_id}"
        with self._lock:
            return self._row(key) if key in self._views else None

    def pending_log(self, app_name: str, user_id: str, session_id: str) -> dict[str, Any]:
        """The session's pending log (``projections.pending``) as of the end of the log."""
        self.refresh()
        with self._lock:
            view = self._views.get(f"{app_name}/{user_id}/{session_id}")
            return json.loads(json.dumps(view["pending"])) if view is not None else new_pending_log()

    def open_requests(self, app_name: str, user_id: str, session_id: str) -> dict[str, PendingRequest]:
        """The session's open requests, by call id, as of the end of the log."""
        return pending_of_log(self.pending_log(app_name, user_id, session_id))

    def waiting(self, app_name: str | None = None, user_id: str | None = None) -> list[tuple[str, str, str]]:
        """(app, user, session id) of the live sessions with an open request, oldest update first."""
        self.refresh()
        with self._lock:
            found = sorted((self._views[key] for key in self._by_status["waiting"]),
                           key=lambda v: (v["updated"], v["app_name"], v["user_id"], v["session_id"]))
            return [(v["app_name"], v["user_id"], v["session_id"]) for v in found
                    if (app_name is None or v["app_name"] == app_name) and (user_id is None or v["user_id"] == user_id)]

    def page(self, query: SessionQuery) -> tuple[list[dict[str, Any]], str | None]:
        """The sessions the query finds, newest update first, a page at a time: the page, and the
        cursor of the next one (None: this is the last)."""
        self.refresh()
        text = query.text.strip().lower()
        with self._lock:
            if text:
                return self._search_page(query, text)
            order, filters = self._candidates(query)
            start = 0
            if query.after is not None:
                start = bisect_right(order, _mark(query.after))
            found: list[dict[str, Any]] = []
            for index in range(start, len(order)):
                key = order[index][1]
                if _older_than_asked(order[index], query):
                    break
                if not self._shown(key, query, filters):
                    continue
                if len(found) == query.limit:
                    return found, self._cursor(found[-1])
                found.append(self._row(key))
            return found, None

    def _filters(self, query: SessionQuery) -> list[Collection[str]]:
        """The sets of sessions the query's app, user, id and status filters name, smallest first:
        a session is shown only if it is in all of them."""
        sets: list[Collection[str]] = []
        if query.session_id is not None:  # one id, in any app and user the other filters allow
            sets.append(self._by_id.get(query.session_id, set()))
        if query.user_id is not None:
            sets.append(self._by_user.get(query.user_id, ()))
        elif query.users is not None:
            sets.append(set().union(*(self._by_user.get(u, ()) for u in query.users)))
        if query.app_name is not None:
            sets.append(self._by_app.get(query.app_name, ()))
        if query.status is not None:
            sets.append(self._by_status[query.status])
        return sorted(sets, key=len)

    def _shown(self, key: str, query: SessionQuery, filters: list[Collection[str]]) -> bool:
        """Whether a page shows the session: in every filter's set, its genesis not purged, in
        the query's time range."""
        if filters and not all(key in f for f in filters):
            return False
        view = self._views.get(key)
        if view is None or not view["session_id"]:  # its genesis was purged
            return False
        if query.since is not None and view["updated"] < query.since:
            return False
        return query.until is None or view["created"] < query.until + 86400

    def _candidates(self, query: SessionQuery) -> tuple[list[_Mark], list[Collection[str]]]:
        """The sessions to page through, in page order, and the sets each must be in: the
        smallest filter's sessions that all the others hold, sorted, when they are few; else the
        whole order, filtered as the page is read (it stops at the limit)."""
        sets, views = self._filters(query), self._views
        if sets and len(sets[0]) * 8 < len(views):
            smallest, *others = sets
            return sorted((-views[key]["updated"], key) for key in smallest if all(key in o for o in others)), []
        if self._order is None:
            self._order = sorted((-view["updated"], key) for key, view in views.items())
        return self._order, sets

    @staticmethod
    def _key(row: dict[str, Any]) -> str:
        return f"{row['app_name']}/{row['user_id']}/{row['session_id']}"

    def _cursor(self, row: dict[str, Any]) -> str:
        return encode_cursor(row["updated"], self._key(row))

    # -- searching ---------------------------------------------------------------------------

    def _search_page(self, query: SessionQuery, text: str) -> tuple[list[dict[str, Any]], str | None]:
        """A page of the sessions whose id or searched texts hold ``text`` (lower case). The
        store searches its stored texts a page at a time, in the page's order, as of the index's
        position: they are caught up first (on a read-only store they may lag: the sessions the
        events in between changed are searched here, from their stored texts and those events).
        When the other filters name few sessions, the store looks among those only."""
        after = _mark(query.after) if query.after is not None else None
        if not self.store.read_only:
            self.follower.catch_up()
        for _ in range(5):  # the stored rows moved meanwhile: search them again
            self.refresh()
            before = self._stored_state()
            if before[0] > self._position or before[1] != self._epoch:
                continue
            filters = self._filters(query)
            within = None
            if filters and len(filters[0]) * 4 < len(self._views):
                smallest, *others = filters
                within, filters = [key for key in smallest if all(key in o for o in others)], []
            recent = self._texts_since(before[0], within)
            found: list[dict[str, Any]] = []
            more = False
            for mark in heapq.merge(self._recent_matches(text, recent, after),
                                    self._stored_matches(text, within, after, query.limit + 1, recent)):
                key = mark[1]
                if _older_than_asked(mark, query):
                    break
                if not self._shown(key, query, filters):
                    continue
                if len(found) == query.limit:
                    more = True
                    break
                found.append(self._row(key))
            if self._stored_state() == before:
                break
        else:
            raise RuntimeError("the session texts kept moving while searched")  # pragma: no cover
        return self._matched(found, text, recent), self._cursor(found[-1]) if more else None

    def _recent_matches(self, text: str, recent: _Recent, after: _Mark | None) -> list[_Mark]:
        """The page-order marks, after ``after``, of the sessions changed beyond the stored rows
        whose texts hold the text."""
        views = self._views
        marks = sorted((-views[key]["updated"], key) for key, texts in recent.items()
                       if key in views and text in searched_text(texts))
        return [mark for mark in marks if after is None or mark > after]

    def _stored_matches(self, text: str, within: Sequence[str] | None, after: _Mark | None, size: int,
                        recent: _Recent) -> Iterator[_Mark]:
        """The page-order marks, after ``after``, of the stored texts that hold the text (those of
        ``recent`` left to ``_recent_matches``), read from the store as far as the caller reads:
        ``size`` first (the page and one more), then more at a time when filters leave some out."""
        storage = self.follower.storage
        while True:
            marks = self.store.read_if_made(
                lambda: storage.search(_NAME, TEXTS, text, within, after=after, limit=size), [])
            yield from (mark for mark in marks if mark[1] not in recent)
            if len(marks) < size:
                return
            after, size = marks[-1], max(size, min(size * 2, _SEARCH_READ))

    def _texts_since(self, position: int, within: Sequence[str] | None) -> _Recent:
        """The texts of the sessions (among ``within``) the log changed between ``position`` (the
        stored rows') and the index's, brought to the index's position: their stored views, and
        the events folded, a batch at a time."""
        storage, texts = self.follower.storage, {}
        wanted = None if within is None else set(within)
        while position < self._position:
            events, position = self.source.read(position, _BATCH, self._position)
            new = list(dict.fromkeys(e.session_key for e in events
                                     if e.session_key not in texts and (wanted is None or e.session_key in wanted)))
            if new:
                stored = self.store.read_if_made(lambda: storage.load_views(_NAME, TEXTS, new), {})
                texts.update((key, stored.get(key) or new_texts()) for key in new)
            for event in events:
                view = texts.get(event.session_key)
                if view is not None:
                    fold_texts(view, event)
        return texts

    def _matched(self, rows: list[dict[str, Any]], text: str, recent: _Recent) -> list[dict[str, Any]]:
        """The rows, each with its ``match``: its session id if it holds the text, else the first
        of its searched texts that does (cut), read for these rows only, a few at a time (only
        the match is kept of each session's texts)."""
        stored = [key for key in (self._key(row) for row in rows if text not in row["session_id"].lower())
                  if key not in recent]
        matches: dict[str, str] = {}
        for start in range(0, len(stored), _MATCH_READ):
            keys = stored[start:start + _MATCH_READ]
            views = self.store.read_if_made(lambda: self.follower.storage.load_views(_NAME, TEXTS, keys), {})
            matches.update((key, _first_match(view, text)) for key, view in views.items())
        for row in rows:
            key = self._key(row)
            if text in row["session_id"].lower():
                row["match"] = row["session_id"]
            else:
                row["match"] = _first_match(recent[key], text) if key in recent else matches.get(key, "")
        return rows

    def _row(self, key: str) -> dict[str, Any]:
        view = self._views[key]
        row = {
            "app_name": view["app_name"], "user_id": view["user_id"], "session_id": view["session_id"],
            "created": view["created"], "updated": view["updated"], "version": view["version"],
            "events": view["events"], "invocations": view["invocations"], "deleted": view["deleted"],
            "rewinds": view["rewinds"], "pending": self._pending[key], "forked_from": view["forked_from"],
            "forks": list(self._forks.get(key, ())), "first_text": view["first_text"],
        }
        row["status"] = [name for name, on in (
            ("waiting", row["pending"]), ("rewound", row["rewinds"]), ("forked", row["forked_from"]),
            ("forked_into", row["forks"]), ("deleted", row["deleted"]),
        ) if on]
        return row
