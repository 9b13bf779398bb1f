"""The sessions page's read model: every session's summary (``projections.session_summary``), folded
once and followed, searched and paged without reading any session's log.

The summaries are a tracked projection (``session_summaries``): stored next to the log with their
position, so a process starting on a big store loads them in one query instead of folding the
whole log (and their searched texts, a second fold, on the first search). A ``SessionIndex`` then
keeps them in memory and follows the log from that position on
each query (whatever another process appended: positions, not notifications, say what is new), and
reloads them when the stored rows were rebuilt or purged (the projection's epoch moved).

Pages are keyset-paginated, newest update first: a page's cursor names the last session it gave,
and the next page starts after it, whatever was appended meanwhile.
"""

from __future__ import annotations

import base64
import json
import threading
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Collection, Sequence

from domain.errors import InvalidArgumentError
from projections.log_event import LogEvent
from projections.pending import PendingRequest, new_pending_log, pending_of_log
from projections.session_summary import (
    SESSION_SUMMARIES, SUMMARIES, TEXTS, fold_summary, fold_texts, new_summary, new_texts,
)
from runtime.read_models.follower import runner_for
from runtime.read_models.source import LogSource
from runtime.stores import Store

STATUSES = ("waiting", "rewound", "forked", "forked_into", "deleted")
_NAME = SESSION_SUMMARIES.name
_BATCH = 10_000


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
    sessions of each app and of each user, those of each status, and the searched texts of all
    sessions in one string (``_Texts``), so a filter or a search reads only the sessions it finds.
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
        self._texts: _Texts | None = None  # loaded on the first search (see _search)
        self._order: list[tuple[float, str]] | None = None  # (-updated, key), sorted

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
                if self._texts is not None:
                    self._texts.fold(events)
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
            order, filters = self._candidates(query, text)
            start = 0
            if query.after is not None:
                updated, key = decode_cursor(query.after)
                start = bisect_right(order, (-updated, key))
            found: list[dict[str, Any]] = []
            views, since, until = self._views, query.since, query.until
            for index in range(start, len(order)):
                key = order[index][1]
                if filters and not all(key in f for f in filters):
                    continue
                view = views[key]
                if not view["session_id"]:
                    continue  # its genesis was purged
                if since is not None and view["updated"] < since:
                    continue
                if until is not None and view["created"] >= until + 86400:
                    continue
                if len(found) == query.limit:
                    last = found[-1]
                    return found, encode_cursor(last["updated"], self._key(last))
                row = self._row(key)
                if text:
                    row["match"] = self._match(view, text)
                found.append(row)
            return found, None

    def _candidates(self, query: SessionQuery, text: str) -> tuple[list[tuple[float, str]], list[Collection[str]]]:
        """The sessions to page through, in page order, and the sets each must be in: the
        smallest of the sets the query's app, user, status and text filters name, sorted, when
        it is small; else the whole order, filtered as the page is read (it stops at the limit)."""
        sets: list[Collection[str]] = []
        if query.session_id is not None:  # one id, in any app and user the other filters allow
            sets.append({key for key in self._by_id.get(query.session_id, ())})
        if query.user_id is not None:
            sets.append(self._by_user.get(query.user_id, ()))
        elif query.users is not None:
            sets.append(set().union(*(self._by_user.get(u, ()) for u in query.users)))
        if query.app_name is not None:
            sets.append(self._by_app.get(query.app_name, ()))
        if query.status is not None:
            sets.append(self._by_status[query.status])
        if text:
            sets.append(self._search(text))
        sets.sort(key=len)
        views = self._views
        if sets and len(sets[0]) * 8 < len(views):
            smallest, *others = sets
            return sorted((-views[key]["updated"], key) for key in smallest if all(key in o for o in others)), []
        if self._order is None:
            self._order = sorted((-view["updated"], key) for key, view in views.items())
        return self._order, sets

    @staticmethod
    def _key(row: dict[str, Any]) -> str:
        return f"{row['app_name']}/{row['user_id']}/{row['session_id']}"

    def _match(self, view: dict[str, Any], text: str) -> str:
        if text in view["session_id"].lower():
            return view["session_id"]
        texts = self._texts.views.get(self._key(view), {}).get("texts", ()) if self._texts else ()
        return next((t[:160] for t in texts if text in t.lower()), "")

    def _search(self, text: str) -> set[str]:
        """The sessions whose id or searched texts hold ``text`` (lower case)."""
        if self._texts is None:
            self._texts = self._load_texts()
        return self._texts.find(text)

    def _load_texts(self) -> _Texts:
        """The stored texts and the position they reflect (the projection's, which may have moved
        since the summaries were loaded), brought to the index's position: the index first
        follows the log to at least theirs, then the events in between are folded into them."""
        storage = self.follower.storage
        for _ in range(5):  # the rows rebuilt meanwhile (a new epoch): read them again
            self.refresh()
            before = self._stored_state()
            views = self.store.read_if_made(lambda: storage.read_views(_NAME, TEXTS), {})
            if self._stored_state() != before or before[1] != self._epoch:
                continue
            self.refresh()  # now at or beyond the texts' position: their rows were committed first
            if before[1] == self._epoch:
                break
        texts = _Texts({key: view for (_, key), view in views.items()}, self._views)
        position = before[0]
        while position < self._position:
            events, position = self.source.read(position, _BATCH, self._position)
            texts.fold(events)
        return texts

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


class _Texts:
    """Every session's searched texts (its id and ``texts``, lower case) in one string, so a search
    is one scan of it (``str.find``), not a Python loop over the sessions. The string is gathered
    again once enough sessions changed; until then a changed session is searched on its own."""

    _REJOIN = 1000  # changed sessions searched one by one before the string is joined again

    def __init__(self, views: dict[str, dict[str, Any]], summaries: dict[str, dict[str, Any]]) -> None:
        self.views = views  # key -> the session_texts view
        self._summaries = summaries
        self._joined = ""
        self._starts: list[int] = []  # where each joined session's text starts
        self._keys: list[str] = []
        self._changed: set[str] = set(views)  # texts not (or no longer) as joined

    def fold(self, events: Sequence[LogEvent]) -> None:
        """Folds events of the log into the texts (their views grow only while ``searched`` does)."""
        for event in events:
            key = event.session_key
            view = self.views.get(key)
            if view is None:
                view = self.views[key] = new_texts()
                self._changed.add(key)
            searched = view["searched"]
            fold_texts(view, event)
            if view["searched"] != searched:
                self._changed.add(key)

    def _text(self, key: str) -> str:
        summary = self._summaries.get(key)
        return "\n".join([summary["session_id"] if summary else "", *self.views[key]["texts"]]).lower()

    def find(self, text: str) -> set[str]:
        """The sessions whose texts hold ``text``."""
        if len(self._changed) > self._REJOIN:
            self._join()
        found: set[str] = set()
        joined, starts, keys = self._joined, self._starts, self._keys
        at = joined.find(text)
        while at >= 0:
            index = bisect_right(starts, at) - 1
            found.add(keys[index])
            next_start = starts[index + 1] if index + 1 < len(starts) else len(joined)
            at = joined.find(text, next_start)
        found -= self._changed
        found.update(key for key in self._changed if text in self._text(key))
        return found

    def _join(self) -> None:
        self._keys = list(self.views)
        self._starts, parts, at = [], [], 0
        for key in self._keys:
            part = self._text(key)
            self._starts.append(at)
            parts.append(part)
            at += len(part) + 1
        self._joined = "\0".join(parts)
        self._changed = set()
