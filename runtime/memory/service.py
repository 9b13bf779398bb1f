"""The memory service over the log: ADK's API, one implementation for every store.

`add_session_to_memory(session)` records, in the user's memory log, that the session is
remembered; the index (a projection) then follows the session's own log, so the session
stays searchable as it grows and its rewound events drop out. A session that lives in
another store (say, an InMemorySessionService next to a SqliteMemoryService) is copied
into the memory log as text, as ADK does. `search_memory` first catches the index up
with the log, then ranks:

* ``ranking="adk"`` (the default): google-adk 2.13's InMemoryMemoryService's search, on every
  store (runtime.memory.keyword_ranking): a session is searched as it was when last added.
* ``ranking="bm25"``: the store's full-text ranking (BM25, FTS5's bm25, PostgreSQL's ts_rank),
  over each remembered session as it grows (its later events need no new add).
"""

from __future__ import annotations

import json
import random
import threading
import time
from datetime import datetime
from typing import Any, Literal, Mapping, Optional, Sequence
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError
from google.genai import types

from domain.errors import InvalidArgumentError, StoreError
from domain.events import Event
from domain.session_log import session_log_id
from domain.session import Session
from domain.validation import check_event_id, check_ids, check_storable
from runtime.log_reader import LogReader
from runtime.memory.base import BaseMemoryService, MemoryEntry, SearchMemoryResponse
from projections.memory import Folded, MemoryDoc, SourceView, fold_memory_log_event, fold_session_event
from runtime.stores.memory_index import MemoryIndex
from domain.memory_log import MemoryLog, memory_log_id
from runtime.memory import keyword_ranking
from runtime.stores import Store, open_store, postgres_store, service_from_url, sqlite_store

DEFAULT_MAX_RESULTS = 10
Ranking = Literal["adk", "bm25"]
RANKINGS = ("adk", "bm25")
CATCH_UP_PAGE = 1000  # events folded per transaction when catching up
_ATTEMPTS = 64


class LogMemoryService(BaseMemoryService):
    """Memory as a projection of the log in one store (memory, SQLite or PostgreSQL).

    Give it the Store a session service uses (``LogMemoryService(session_service.store)``) so
    that remembered sessions are followed as they grow.
    """

    def __init__(
        self,
        store: Store,
        *,
        max_results: int = DEFAULT_MAX_RESULTS,
        index: Optional[MemoryIndex] = None,
        owns_store: bool = False,
        ranking: Ranking = "adk",
    ):
        if not isinstance(max_results, int) or max_results < 1:
            raise InvalidArgumentError(f"max_results must be a positive int, got {max_results!r}")
        if ranking not in RANKINGS:
            raise InvalidArgumentError(f"ranking must be one of {', '.join(RANKINGS)}, got {ranking!r}")
        self.ranking = ranking
        self.store = store
        self.max_results = max_results
        self.index = index if index is not None else store.memory_index()
        self._owns_store = owns_store
        self._application = store.application
        self._reader = LogReader(store)
        self._locks: dict[UUID, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    # -- ADK API -----------------------------------------------------------------------

    async def add_session_to_memory(self, session: Session) -> None:
        """Makes the session's events searchable for its app and user, now and as it grows."""
        if not isinstance(session, Session):
            raise InvalidArgumentError(f"add_session_to_memory needs a Session, got {type(session).__name__}")
        check_ids(session.app_name, session.user_id, session.id)
        events = [c for c in (_compact(e) for e in session.live_events() if not e.partial) if c is not None]
        await self.store.call(self._add, session.app_name, session.user_id, session.id, events, True, session.version)

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: Optional[str] = None,
        custom_metadata: Optional[Mapping[str, object]] = None,
    ) -> None:
        """Remembers these events' text (a delta: events already remembered are skipped). Unlike
        add_session_to_memory, later events of the session are not followed. No custom_metadata
        key changes what this service does."""
        check_ids(app_name, user_id, session_id)
        if not all(isinstance(e, Event) for e in events):
            raise InvalidArgumentError("add_events_to_memory needs a list of Event objects")
        compact = [c for c in (_compact(e) for e in events if not e.partial) if c is not None]
        if compact:
            await self.store.call(self._add, app_name, user_id, session_id or "", compact, False)

    async def search_memory(self, *, app_name: str, user_id: str, query: str) -> SearchMemoryResponse:
        """The user's remembered events that best match `query` (keywords), best first."""
        check_ids(app_name, user_id)
        if not isinstance(query, str):
            raise InvalidArgumentError(f"query must be a string, got {type(query).__name__}")
        found = await self.store.call(self._search, app_name, user_id, query)
        return SearchMemoryResponse(memories=[_entry(doc) for doc, _ in found])

    async def close(self) -> None:
        if self._owns_store:
            self.store.close()

    # -- beyond ADK ----------------------------------------------------------------------

    async def catch_up(self, *, app_name: str, user_id: str) -> int:
        """Folds what the log gained since the index last looked; returns the events folded."""
        check_ids(app_name, user_id)
        return await self.store.call(self._catch_up, app_name, user_id)

    async def rebuild(self) -> int:
        """Drops the index and folds it again from the log; returns the events folded."""
        return await self.store.call(self._rebuild)

    async def documents(self, *, app_name: str, user_id: str) -> list[MemoryDoc]:
        """Everything the index holds for (app, user), rewound documents included (flagged)."""
        check_ids(app_name, user_id)
        return await self.store.call(self.index.documents, app_name, user_id)

    # -- in the store's thread ---------------------------------------------------------

    def _lock(self, log_id: UUID) -> threading.Lock:
        lock = self._locks.get(log_id)
        if lock is None:
            with self._locks_guard:
                lock = self._locks.setdefault(log_id, threading.Lock())
        return lock

    def _has_log(self, log_id: UUID) -> bool:
        return bool(self._reader.stored_events(log_id, limit=1))

    def _add(
        self,
        app_name: str,
        user_id: str,
        session_id: str,
        events: list[dict[str, Any]],
        follow: bool = True,
        version: Optional[int] = None,
    ) -> None:
        # follow: index the session's log itself (and its later events) when this store holds it;
        # version: the session's, as added (what google-adk's memory would hold of it).
        session_log = session_log_id(app_name, user_id, session_id)
        in_store = follow and self._has_log(session_log)
        log_id = memory_log_id(app_name, user_id)
        for attempt in range(_ATTEMPTS):
            with self._lock(log_id):
                try:
                    log, new = self._application.repository.get(log_id), False
                except AggregateNotFoundError:
                    log, new = MemoryLog.start(app_name, user_id), True
                if in_store:
                    changed = log.add_session(session_id, session_log, version)
                else:
                    changed = log.remember(session_id, events)
                if not changed and not new:
                    break
                try:
                    self._application.save(log)
                    break
                except IntegrityError:
                    self.store.forget_cached(log_id)
            time.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
        else:
            raise StoreError(f"Could not add session {session_id!r} to memory: too many concurrent writers. Try again.")
        self._catch_up(app_name, user_id)

    def _search(self, app_name: str, user_id: str, query: str) -> list[tuple[MemoryDoc, float]]:
        self._catch_up(app_name, user_id)
        if self.ranking == "bm25":
            return self.index.search(app_name, user_id, query, self.max_results)
        try:
            log = self._application.repository.get(memory_log_id(app_name, user_id))
        except AggregateNotFoundError:
            return []
        return keyword_ranking.rank(_as_added(log, self.index.documents(app_name, user_id)), query, self.max_results)

    def _catch_up(self, app_name: str, user_id: str) -> int:
        log_id = memory_log_id(app_name, user_id)
        own = log_id.hex
        sources = self.index.sources(app_name, user_id)
        members = [UUID(s) for s in sources if s != own and "/" not in s]
        versions = self.index.current_versions([log_id, *members])
        if own not in versions:
            return 0  # nothing was ever added to this user's memory
        folded = 0
        # The memory log first: it may name new sessions to follow.
        if versions[own] > sources.get(own, SourceView("")).position:
            folded += self._fold(app_name, user_id, log_id, sources.get(own, SourceView("")), memory_log=True)
            sources = self.index.sources(app_name, user_id)
            members = [UUID(s) for s in sources if s != own and "/" not in s]
            versions.update(self.index.current_versions(members))
        for member in members:
            view = sources[member.hex]
            if versions.get(member.hex, 0) > view.position:
                folded += self._fold(app_name, user_id, member, view, memory_log=False)
        return folded

    def _fold(self, app_name: str, user_id: str, log_id: UUID, view: SourceView, *, memory_log: bool) -> int:
        source = log_id.hex
        total = 0
        while True:
            rows = self._reader.stored_events(log_id, gt=view.position, limit=CATCH_UP_PAGE)
            if not rows:
                return total
            before = view.position
            changes = Folded()
            for row in rows:
                payload = json.loads(row.state)
                if memory_log:
                    fold_memory_log_event(view, source, row.originator_version, row.topic, payload, changes)
                else:
                    fold_session_event(view, source, row.originator_version, row.topic, payload, changes)
            if not self.index.commit(app_name, user_id, source, before, view, changes):
                return total  # another catch-up is folding this source
            total += len(rows)
            if len(rows) < CATCH_UP_PAGE:
                return total

    def _rebuild(self) -> int:
        self.index.clear()
        total, start = 0, 1
        while True:
            page = self._reader.notifications(start, 1000, topics=[MemoryLog.Created.TOPIC])
            for notification in page:
                payload = json.loads(notification.state)
                total += self._catch_up(payload["app_name"], payload["user_id"])
            if len(page) < 1000:
                return total
            start = page[-1].id + 1


def _compact(event: Event) -> Optional[dict[str, Any]]:
    """What a memory log keeps of an event of another store: ids, author, time, text parts."""
    content = event.content
    parts = [{"text": p.text} for p in (content.parts or ()) if p.text and not p.thought] if content else []
    if not parts:
        return None
    compact = {
        "id": check_event_id(event.id),
        "invocation_id": check_event_id(event.invocation_id or "", "invocation id", blank=True),
        "author": event.author,
        "timestamp": event.timestamp,
        "content": {"role": content.role, "parts": parts},
    }
    # The events may come straight from the caller (add_events_to_memory), not from a store: the
    # same limits as an append, so no text can break the index of one store and not another's.
    check_storable(compact, f"Event {event.id!r} remembered")
    return compact


def _as_added(log: MemoryLog, docs: list[MemoryDoc]) -> list[MemoryDoc]:
    """The visible docs as google-adk's memory holds them: each session as it was when last
    added, sessions in the order they were first added, each session's events in its order."""
    horizons, order = log.horizons, log.session_order()
    kept = [d for d in docs if not d.hidden and not d.position > horizons.get(d.source, d.position)]
    return sorted(kept, key=lambda d: (order.get(d.session_id, len(order)), d.source, d.position))


def _entry(doc: MemoryDoc) -> MemoryEntry:
    """google-adk's MemoryEntry: no custom_metadata; the time as its `datetime.isoformat()` of
    the local time gives it."""
    return MemoryEntry(
        content=types.Content.model_validate(doc.content),
        author=doc.author,
        timestamp=datetime.fromtimestamp(doc.timestamp).isoformat(),
        id=doc.event_id,
    )


# -- the services users construct --------------------------------------------------------


class InMemoryMemoryService(LogMemoryService):
    """Memory kept in this process only: for tests and demos."""

    def __init__(self, *, max_results: int = DEFAULT_MAX_RESULTS, ranking: Ranking = "adk"):
        super().__init__(open_store("memory://"), max_results=max_results, owns_store=True, ranking=ranking)


class SqliteMemoryService(LogMemoryService):
    """Memory in one SQLite file (ranking="bm25": FTS5's bm25)."""

    def __init__(self, path_or_url: str = "chronicle.db", *, max_results: int = DEFAULT_MAX_RESULTS, ranking: Ranking = "adk"):
        super().__init__(sqlite_store(path_or_url), max_results=max_results, owns_store=True, ranking=ranking)


class PostgresMemoryService(LogMemoryService):
    """Memory in PostgreSQL (ranking="bm25": ts_rank over a tsvector GIN index)."""

    def __init__(self, url: str, *, max_results: int = DEFAULT_MAX_RESULTS, ranking: Ranking = "adk"):
        store = postgres_store(url, needed_by="PostgresMemoryService")
        super().__init__(store, max_results=max_results, owns_store=True, ranking=ranking)


def memory_service_from_url(url: str, *, max_results: int = DEFAULT_MAX_RESULTS, ranking: Ranking = "adk") -> LogMemoryService:
    """A memory service for memory://, sqlite:///path.db or postgresql://… URLs."""
    return service_from_url(url, lambda store: LogMemoryService(
        store, max_results=max_results, owns_store=True, ranking=ranking))
