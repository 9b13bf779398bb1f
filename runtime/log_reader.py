"""The one way to read stored rows from above ``runtime/stores/``: ``LogReader``.

It answers in the domain's terms — a session's catalog row, its events (live or all), its open
requests, a log's rows and event-id claims, positions for followers, scoped values — and
applies each rule a reader needs from its one home (rewinds through
``domain.rewind_ranges.live_events``, open requests through ``projections.pending``'s fold, kept
by the sessions read model ``runtime.read_models.sessions``), so the
Runner, ``chronicle pending``, the server and the viewer cannot disagree.

Its methods are synchronous like the recorder under them: from async code, run them through
``store.call``. The Runner's own loads and appends do not come here (they are the session
service's, on the hot path)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence
from uuid import UUID

from domain.errors import SessionNotFoundError
from domain.rewind_ranges import live_events
from domain.session_ids import session_log_id

if TYPE_CHECKING:  # a catalog read (`chronicle sessions`) imports no aggregate, pydantic or fold
    from eventsourcing.persistence import Notification, StoredEvent

    from domain.events import Event
    from projections.pending import PendingRequest
    from runtime.stores import Catalog, Store
    from runtime.stores.rows import CatalogRow, Listing


class LogReader:
    """Reads of one store's log, in domain terms."""

    def __init__(self, store: Store | Catalog):
        """``store``: a store, or its catalog alone (``runtime.stores.open_catalog``), which answers
        the catalog reads only (``sessions``, ``session``, ``apps``)."""
        self.store = store
        self._recorder = store.recorder

    # -- sessions: the catalog -------------------------------------------------------

    def sessions(self, app_name: str | None = None, user_id: str | None = None, *, session_id: str | None = None,
                 deleted: bool = True) -> list[CatalogRow]:
        """Catalog rows by app, user and session id (None: any), oldest update first; deleted
        sessions too unless ``deleted=False``. A session id alone is found through an index."""
        rows = self._recorder.select_catalog(app_name, user_id, session_id=session_id)
        return rows if deleted else [r for r in rows if not r.deleted]

    def session(self, app_name: str, user_id: str, session_id: str) -> CatalogRow | None:
        """One session's catalog row (a deleted one too), by its key: no scan of the user's sessions."""
        rows = self._recorder.select_catalog(log_id=session_log_id(app_name, user_id, session_id))
        return rows[0] if rows else None

    def stored_session(self, app_name: str, user_id: str, session_id: str) -> CatalogRow:
        """``session``, or SessionNotFoundError when the store never had it."""
        row = self.session(app_name, user_id, session_id)
        if row is None:
            raise SessionNotFoundError(app_name, user_id, session_id)
        return row

    def apps(self, user_id: str | None = None) -> list[str]:
        """The apps with a stored session (of this user), sorted."""
        return sorted({r.app_name for r in self._recorder.select_catalog(None, user_id)})

    # -- a session's events ----------------------------------------------------------

    def events(self, row: CatalogRow, *, live: bool = True, gt: int | None = None,
               lte: int | None = None) -> list[Event]:
        """A session's ADK events, rewind markers included, in log order: those no rewind in effect
        hides (``live``, the events the Runner works from) or all of them; within versions
        (``gt``, ``lte``] when given. A window's rewinds apply within the window."""
        from domain.session_log import RECORDED_TOPICS  # the aggregate's module: imported by event reads

        events = [
            _event(state) for _, topic, state in self._recorder.select_rows(row.log_id, gt=gt, lte=lte)
            if topic in RECORDED_TOPICS
        ]
        return live_events(events) if live else events

    def invocation_ids(self, row: CatalogRow) -> list[str]:
        """The session's invocation ids in the order they began, rewound ones too."""
        return list(dict.fromkeys(e.invocation_id for e in self.events(row, live=False) if e.invocation_id))

    def open_requests(self, row: CatalogRow) -> dict[str, PendingRequest]:
        """The session's requests still waiting for a person, by request id: what the Runner accepts
        an answer to, read from the sessions read model (``projections.pending``'s fold of its log,
        followed from its position), so it costs the session's requests, not its history."""
        return self._index().open_requests(row.app_name, row.user_id, row.session_id)

    def pending(self, app_name: str | None = None, user_id: str | None = None) -> list[tuple[CatalogRow, PendingRequest]]:
        """(catalog row, request) for every open request of the live sessions, oldest first."""
        found = []
        for app, user, session_id in self._index().waiting(app_name, user_id):
            row = self.session(app, user, session_id)
            if row is not None and not row.deleted:
                found += [(row, request) for request in self.open_requests(row).values()]
        return sorted(found, key=lambda item: item[1].since)

    def ever_requested(self, row: CatalogRow, request_id: str) -> bool:
        """Whether any event of the session (rewound ones too) made the request ``request_id``."""
        log = self._index().pending_log(row.app_name, row.user_id, row.session_id)["log"]
        return any(op == "open" and value["call_id"] == request_id for _, op, value in log)

    def _index(self) -> Any:
        from runtime.read_models.sessions import SessionIndex  # above this module: imported when asked

        return SessionIndex.of(self.store)

    # -- a log's rows ----------------------------------------------------------------

    def rows(self, log_id: UUID, *, gt: int | None = None, lte: int | None = None, desc: bool = False,
             limit: int | None = None) -> list[tuple[int, str, bytes]]:
        """A log's stored events as (version, topic, payload) rows."""
        return self._recorder.select_rows(log_id, gt=gt, lte=lte, desc=desc, limit=limit)

    def stored_events(self, log_id: UUID | str, *, gt: int | None = None, lte: int | None = None,
                      desc: bool = False, limit: int | None = None) -> Sequence[StoredEvent]:
        """A log's stored events (the chain a verifier checks), oldest first unless ``desc``."""
        return self._recorder.select_events(log_id, gt=gt, lte=lte, desc=desc, limit=limit)

    def snapshots(self, log_id: UUID | str, *, gt: int | None = None, limit: int | None = None) -> Sequence[StoredEvent]:
        """A log's stored snapshots (after version ``gt``), oldest first."""
        return self.store.stored_snapshots(log_id, gt=gt, limit=limit)

    def link(self, log_id: UUID, version: int) -> str | None:
        """The chain link stored with the log's event at ``version`` (None: no such event, or no link)."""
        from runtime.stores.application import stored_link

        return stored_link(self._recorder, log_id, version)

    def claim(self, log_id: UUID, event_id: str) -> int | None:
        """The version of the log that holds event ``event_id``, or None."""
        return self._recorder.find_claim(log_id, event_id)

    def claims(self, log_id: UUID, event_ids: Sequence[str] | None = None) -> dict[str, int]:
        """A log's event-id claims: {event id: version}; every one, or those of ``event_ids``."""
        return self._recorder.select_claims(log_id, event_ids)

    def claim_count(self, log_id: UUID) -> int:
        """How many event-id claims a log has."""
        return self._recorder.count_claims(log_id)

    def lengths(self, log_ids: Sequence[UUID]) -> dict[UUID, int]:
        """{log id: its last stored version} for those of ``log_ids`` that have events."""
        return self.store.log_lengths(log_ids)

    def batch(self, log_ids: Sequence[UUID]) -> BatchReader:
        """A reader that holds these whole logs, read together (``BatchReader``)."""
        return BatchReader(self.store, log_ids)

    # -- across logs: positions for followers ----------------------------------------

    def notifications(self, start: int | None, limit: int, topics: Sequence[str] = ()) -> Sequence[Notification]:
        """The whole log's events from position ``start`` on (of these topics), in position order."""
        return self._recorder.select_notifications(start, limit, topics=topics)

    # -- scoped values ---------------------------------------------------------------

    def listing(self, app_name: str, user_id: str | None) -> list[Listing]:
        """What ``list_sessions`` shows of each of the app's (or one user's) live sessions."""
        return self._recorder.select_listing(app_name, user_id)

    def scoped(self, app_name: str, user_id: str) -> dict[str, Any]:
        """The ``app:`` and ``user:`` values a session of this user sees."""
        return self._recorder.select_scoped(app_name, user_id)

    def scoped_rows(self, app_name: str, user_id: str | None) -> dict[str, dict[str, Any]]:
        """The stored ``app:``/``user:`` values by user id ('' for the app's own)."""
        return self._recorder.select_scoped_rows(app_name, user_id)


class BatchReader(LogReader):
    """A reader holding a few whole logs, read together (``Store.log_batch``: their rows,
    snapshots, event-id claims and catalog rows in one read of each, one round trip on
    PostgreSQL): it answers those logs' row, link, snapshot, claim and catalog reads from what it
    holds, and reads any other log as ``LogReader`` does. A verify of many short logs costs a read
    per batch, not three per log."""

    def __init__(self, store: Store, log_ids: Sequence[UUID]):
        super().__init__(store)
        self._batch = store.log_batch(log_ids)
        self._recorder = _Held(self._recorder, self._batch)

    def session(self, app_name: str, user_id: str, session_id: str) -> CatalogRow | None:
        log_id = session_log_id(app_name, user_id, session_id)
        if log_id not in self._batch.events:
            return super().session(app_name, user_id, session_id)
        return self._batch.catalog.get(log_id)

    def snapshots(self, log_id: UUID | str, *, gt: int | None = None, limit: int | None = None) -> Sequence[StoredEvent]:
        held = self._batch.snapshots.get(_uuid(log_id))
        if held is None:
            return super().snapshots(log_id, gt=gt, limit=limit)
        return _picked(held, gt, None, False, limit)


class _Held:
    """A recorder's reads of a batch's logs answered from the batch (others go to the recorder)."""

    def __init__(self, recorder: Any, batch: Any):
        self._recorder, self._batch = recorder, batch

    def __getattr__(self, name: str) -> Any:
        return getattr(self._recorder, name)

    def select_events(self, log_id: UUID | str, *, gt: int | None = None, lte: int | None = None,
                      desc: bool = False, limit: int | None = None) -> Sequence[StoredEvent]:
        held = self._batch.events.get(_uuid(log_id))
        if held is None:
            return self._recorder.select_events(log_id, gt=gt, lte=lte, desc=desc, limit=limit)
        return _picked(held, gt, lte, desc, limit)

    def select_rows(self, log_id: UUID, *, gt: int | None = None, lte: int | None = None, desc: bool = False,
                    limit: int | None = None) -> list[tuple[int, str, bytes]]:
        return [(e.originator_version, e.topic, e.state)
                for e in self.select_events(log_id, gt=gt, lte=lte, desc=desc, limit=limit)]

    def select_claims(self, log_id: UUID, event_ids: Sequence[str] | None = None) -> dict[str, int]:
        held = self._batch.claims.get(_uuid(log_id))
        if held is None:
            return self._recorder.select_claims(log_id, event_ids)  # type: ignore[no-any-return]
        return dict(held) if event_ids is None else {i: held[i] for i in event_ids if i in held}

    def count_claims(self, log_id: UUID) -> int:
        held = self._batch.claims.get(_uuid(log_id))
        return self._recorder.count_claims(log_id) if held is None else len(held)  # type: ignore[no-any-return]


def _uuid(log_id: UUID | str) -> UUID:
    return log_id if isinstance(log_id, UUID) else UUID(str(log_id))


def _picked(rows: Sequence[StoredEvent], gt: int | None, lte: int | None, desc: bool,
            limit: int | None) -> list[StoredEvent]:
    """Those of a log's rows (oldest first) a read with these bounds returns."""
    picked = [r for r in rows
              if (gt is None or r.originator_version > gt) and (lte is None or r.originator_version <= lte)]
    if desc:
        picked.reverse()
    return picked if limit is None else picked[:limit]


def _event(state: bytes) -> Event:
    from runtime.sessions.session_logs import parse_recorded_state  # the event model: not for every import

    return parse_recorded_state(state)
