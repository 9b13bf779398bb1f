"""The session service over the log: ADK's API, one implementation for every store."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
import uuid
from typing import Any, Optional, Sequence
from uuid import UUID

from eventsourcing.persistence import IntegrityError, StoredEvent
from pydantic_core import from_json

from domain.errors import (
    AlreadyExistsError,
    InvalidArgumentError,
    InvocationNotFoundError,
    SessionNotFoundError,
    StaleSessionError,
)
from domain.events import Event
from domain.interruption import left_open
from domain.log_only import is_log_only
from domain.session_log import RECORDED_TOPICS, SessionLog, session_log_id
from domain.rewind_ranges import active_ranges, is_hidden
from domain.session import Session
from domain.state import USER_PREFIX, ScopedDelta, check_json_state, split_scopes, with_scoped, without_temp
from domain.validation import check_ids
from runtime.gc_pause import gc_paused
from runtime.log_reader import LogReader
from runtime.sessions.base import BaseSessionService, GetSessionConfig, ListSessionsResponse
from runtime.sessions.session_logs import SessionLogs, catalog_row, copy_state, parse_recorded, parse_recorded_state
from runtime.sessions.session_rewind import RewindPoint, SessionRewinds
from runtime.stores import SideRows, Store, open_store, postgres_store, service_from_url, sqlite_store

_PAGE = 64  # events read per round trip when only the newest are wanted


def decode_events(rows: Sequence[tuple[int, str, bytes]], hidden: list[tuple[int, int]]) -> list[Event]:
    """The ADK events of a log's (version, topic, state) rows, skipping those in ``hidden``
    (``[]``: all of them, as ``get_session`` returns them): all of a full load's work once the
    rows are read."""
    with gc_paused():
        return [
            parse_recorded_state(state)
            for at, topic, state in rows
            if topic in RECORDED_TOPICS and not is_hidden(at, hidden)
        ]


def _scoped_rows(app_name: str, user_id: str, scoped: ScopedDelta) -> list[tuple[str, str, str, Any]]:
    return [(app_name, "", k, v) for k, v in scoped.app.items()] + [
        (app_name, user_id, k, v) for k, v in scoped.user.items()
    ]


class LogSessionService(BaseSessionService):
    """Sessions as event-sourced logs in one store (memory, SQLite or PostgreSQL)."""

    def __init__(self, store: Store):
        self.store = store
        self._application = store.application
        self._reader = LogReader(store)
        self._logs = SessionLogs(store)
        self._rewinds = SessionRewinds(self._logs)

    # -- ADK API -----------------------------------------------------------------------

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: Optional[dict[str, Any]] = None,
        session_id: Optional[str] = None,
    ) -> Session:
        check_ids(app_name, user_id, session_id)
        check_json_state(state, "state")
        session_id = session_id or str(uuid.uuid4())
        return await self.store.call(self._create, app_name, user_id, session_id, without_temp(state))

    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: Optional[GetSessionConfig] = None,
    ) -> Optional[Session]:
        check_ids(app_name, user_id, session_id)
        return await self.store.call(self._get, app_name, user_id, session_id, config)

    async def list_sessions(self, *, app_name: str, user_id: Optional[str] = None) -> ListSessionsResponse:
        check_ids(app_name, user_id if user_id is not None else "any")
        return await self.store.call(self._list, app_name, user_id)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        check_ids(app_name, user_id, session_id)
        await self.store.call(self._delete, app_name, user_id, session_id)

    async def append_event(self, session: Session, event: Event) -> Event:
        if not isinstance(session, Session):
            raise InvalidArgumentError(f"append_event needs a Session, got {type(session).__name__}")
        if not isinstance(event, Event):
            raise InvalidArgumentError(f"append_event needs an Event, got {type(event).__name__}")
        event.check_shape()
        if event.partial:
            return event  # streamed chunks are forwarded, never stored
        if event.actions.rewind_before_invocation_id:
            event.checked_dump()  # the marker is rebuilt from it, but its id and fields are the caller's
            return await self._rewinds.append(session, event)
        delta = event.actions.state_delta  # all of it, temp: keys included, goes to session.state
        check_json_state(delta, "state_delta")
        stored_delta = without_temp(delta)
        if stored_delta is not delta:
            event.actions.state_delta = stored_delta  # temp: never leaves the invocation
        # Checked as it is now, not as it was built: nothing malformed reaches any store.
        payload = event.checked_dump()
        interrupted = left_open(session.events, event.invocation_id)
        version, duplicate = await self.store.call(self._append, session, payload, interrupted)
        if duplicate is not None:
            return duplicate
        session.state.update(delta)
        if is_log_only(event):
            session.keep_log_only(event)
        else:
            session.events.append(event)
        session.advance(version, event.timestamp)
        return event

    async def rewind_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        rewind_before_invocation_id: str,
        invocation_id: Optional[str] = None,
        artifact_versions: Optional[dict[str, int]] = None,
    ) -> Event:
        """Take the session back to just before an invocation, in one append.

        Session state (initial state included) and session artifact versions become what
        they were then; later events stay in the log and in ``session.events`` (as in ADK),
        followed by the marker, and ``Session.filter_events()`` and the LLM context leave them
        out. ``app:`` and ``user:`` state are shared with other sessions and are not rolled
        back. ``artifact_versions`` names the new versions the session's files were restored
        as (what ``Runner.rewind_async`` passes, as ADK's Runner does). Returns the rewind's
        marker event (ADK's shape: its actions carry ``rewind_before_invocation_id`` and the
        deltas that take the session back).
        """
        return await self._rewinds.rewind(
            app_name=app_name, user_id=user_id, session_id=session_id, target=rewind_before_invocation_id,
            invocation_id=invocation_id, artifact_versions=artifact_versions,
        )

    async def artifact_view(self, *, app_name: str, user_id: str, session_id: str) -> dict[str, int]:
        """The session's files as its log has them: filename -> the version in view ({} if none)."""
        return await self._rewinds.artifact_view(app_name=app_name, user_id=user_id, session_id=session_id)

    async def rewind_point(
        self, *, app_name: str, user_id: str, session_id: str, rewind_before_invocation_id: str
    ) -> RewindPoint:
        """Where a rewind to before the invocation would take the session, read, not written: the
        first version it would hide, the log's version now, and the session's files then.
        Raises what ``rewind_session`` raises (SessionNotFoundError, InvocationNotFoundError)."""
        return await self._rewinds.point(
            app_name=app_name, user_id=user_id, session_id=session_id,
            rewind_before_invocation_id=rewind_before_invocation_id,
        )

    async def fork_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        at_invocation_id: Optional[str] = None,
        new_session_id: Optional[str] = None,
    ) -> Session:
        """A new session whose history is this one's, up to just before ``at_invocation_id``
        (or all of it). The source is untouched; the fork records where it came from."""
        check_ids(app_name, user_id, session_id)
        if new_session_id is not None:
            check_ids(app_name, user_id, new_session_id)
        return await self.store.call(
            self._fork, app_name, user_id, session_id, at_invocation_id, new_session_id or str(uuid.uuid4())
        )

    async def close(self) -> None:
        self.store.close()

    # -- in the store's thread ---------------------------------------------------------

    def _create(self, app_name: str, user_id: str, session_id: str, state: dict[str, Any]) -> Session:
        log = SessionLog.start(app_name, user_id, session_id, copy_state(state), time.time())
        side = SideRows(
            new_sessions=[catalog_row(log, state=log.state)],
            scoped=_scoped_rows(app_name, user_id, split_scopes(state)),
        )
        try:
            self.store.save(log, side)
        except IntegrityError:
            raise AlreadyExistsError(  # google-adk 2.13's sentence first, then Chronicle's reason
                f"Session with id {session_id} already exists. Session {session_id!r} of user {user_id!r} in app"
                f" {app_name!r} has a log, kept even after deletion; choose another session id."
            ) from None
        return self._view(log, log.version, copy_state(log.state), [])

    def _get(
        self, app_name: str, user_id: str, session_id: str, config: GetSessionConfig | None
    ) -> Session | None:
        log_id = session_log_id(app_name, user_id, session_id)
        # A windowed read starts with the newest page, which also says the log's current
        # version: when the cached log is at it, there is nothing to catch up on.
        newest = self._newest_page(log_id) if config is not None and (config.num_recent_events or
                                                                    config.after_timestamp is not None) else None
        with self._logs.lock(log_id):
            log = self._logs.cached_at(log_id, newest[0].originator_version) if newest else None
            if log is None:
                log = self._logs.load(log_id)
            if log is None:
                return None
            version, state = log.version, copy_state(log.state)
        if newest and newest[0].originator_version != version:
            newest = None  # another writer appended in between: read again at this version
        events = self._read_events(log_id, version, config, newest)
        return self._view(log, version, state, events)

    def _list(self, app_name: str, user_id: str | None) -> ListSessionsResponse:
        rows = self._reader.listing(app_name, user_id)
        scoped = self._reader.scoped_rows(app_name, user_id)  # one read, not one per user
        app_scope = scoped.get("")
        build = Session.from_store
        with gc_paused():
            sessions = [
                build(
                    id=session_id,
                    app_name=app_name,
                    user_id=row_user,
                    state=with_scoped(
                        from_json(state) if isinstance(state, str) else copy_state(state),
                        app_scope,
                        scoped.get(row_user),
                    ),
                    events=[],
                    last_update_time=last_update_time,
                    version=version,
                )
                for session_id, row_user, last_update_time, version, state in rows
            ]
        return ListSessionsResponse(sessions=sessions)

    def _delete(self, app_name: str, user_id: str, session_id: str) -> None:
        log_id = session_log_id(app_name, user_id, session_id)
        with self._logs.lock(log_id):
            log = self._logs.load(log_id)
            if log is None:
                return
            log.delete(time.time())
            self._logs.save(log, SideRows(updated_sessions=[catalog_row(log)]))

    def _newest_page(self, log_id: UUID, upper: int | None = None) -> Sequence[StoredEvent]:
        return self._reader.stored_events(log_id, lte=upper, desc=True, limit=_PAGE)

    def _append(
        self, session: Session, payload: dict[str, Any], interrupted: tuple[str, list[str]] | None = None
    ) -> tuple[int, Event | None]:
        """Records the event; ``interrupted`` (``domain.interruption.left_open``) is noted first,
        in the same transaction, when the event starts a new invocation."""
        app_name, user_id, expected = session.app_name, session.user_id, session.version
        log_id = session_log_id(app_name, user_id, session.id)
        with self._logs.lock(log_id):
            log = self._logs.load_for_append(log_id, expected)
            if log is None:
                raise SessionNotFoundError(app_name, user_id, session.id)
            if expected is not None and expected != log.version:
                duplicate = self._logs.stored_event(log_id, payload["id"])
                if duplicate is not None:
                    return log.version, duplicate
                raise StaleSessionError(session.id, expected, log.version)
            if interrupted is not None and self.store.invocation_span(log_id, payload["invocation_id"]) is None:
                log.note_interrupted(*interrupted, payload["timestamp"])  # a new invocation: rare, so asked
            log.record(payload)
            version = log.version
            scoped = split_scopes(payload["actions"].get("state_delta"))
            side = SideRows(
                claims=[(log_id, payload["id"], version)],
                updated_sessions=[catalog_row(log, state=log.state if scoped.session else None)],
                scoped=_scoped_rows(app_name, user_id, scoped) if scoped.app or scoped.user else [],
            )
            try:
                self._logs.save(log, side)
            except IntegrityError:
                # Another writer got there first, or this event id is already stored.
                duplicate = self._logs.stored_event(log_id, payload["id"])
                if duplicate is not None:
                    return version, duplicate
                current = self._logs.load(log_id)
                raise StaleSessionError(session.id, version - 1, current.version if current else version) from None
            return version, None

    def _fork(
        self, app_name: str, user_id: str, session_id: str, at_invocation_id: str | None, new_session_id: str
    ) -> Session:
        source_id = session_log_id(app_name, user_id, session_id)
        with self._logs.lock(source_id):
            source = self._logs.load(source_id)
            if source is None:
                raise SessionNotFoundError(app_name, user_id, session_id)
            cut = source.version
            if at_invocation_id is not None:
                start = source.visible_start(self.store.invocation_span(source_id, at_invocation_id))
                if start is None:
                    raise InvocationNotFoundError(session_id, at_invocation_id)
                cut = start - 1
        rows = self._reader.stored_events(source_id, lte=cut)
        decode = self._application.mapper.to_domain_event
        genesis = decode(rows[0])
        hidden = active_ranges([r for r in source.rewinds if r[0] <= cut])
        fork = SessionLog.start(
            app_name, user_id, new_session_id, copy_state(split_scopes(genesis.state).session), time.time()
        )
        # Copied cheaply: the fork's timeline is the source's visible events, replayed
        # from the source's genesis; payloads are reused as they are.
        claims = []
        for row in rows[1:]:
            if row.topic == SessionLog.Recorded.TOPIC and not is_hidden(row.originator_version, hidden):
                payload = decode(row).event
                fork.record(payload)
                claims.append((fork.id, payload["id"], fork.version))
        fork.fork_of(source, cut, at_invocation_id, time.time())
        side = SideRows(claims=claims, new_sessions=[catalog_row(fork, state=fork.state)])
        try:
            self.store.save(fork, side)
        except IntegrityError:
            raise AlreadyExistsError(
                f"Session {new_session_id!r} already exists; choose another id for the fork."
            ) from None
        return self._view(fork, fork.version, copy_state(fork.state), [])

    # -- helpers -----------------------------------------------------------------------

    def _view(self, log: SessionLog, version: int, state: dict[str, Any], events: list[Event]) -> Session:
        scoped = self._reader.scoped_rows(log.app_name, log.user_id)
        return Session.from_store(
            id=log.session_id,
            app_name=log.app_name,
            user_id=log.user_id,
            state=with_scoped(state, scoped.get(""), scoped.get(log.user_id)),
            events=events,
            last_update_time=log.last_update_time,
            version=version,
        )

    def _read_events(
        self,
        log_id: UUID,
        version: int,
        config: GetSessionConfig | None,
        newest: Sequence[StoredEvent] | None = None,
    ) -> list[Event]:
        """The session's events as ADK returns them: rewound ones stay, each rewind's marker
        after them (``Session.filter_events()`` leaves both out)."""
        limit = config.num_recent_events if config else None
        if limit == 0:
            return []
        after = config.after_timestamp if config else None
        if not limit and after is None:
            return decode_events(self._reader.rows(log_id, lte=version), [])
        # Newest first, a page at a time, until enough or older than after_timestamp.
        newest_first: list[Event] = []
        upper = version
        while upper > 1:
            page, newest = newest or self._newest_page(log_id, upper), None
            for row in page:
                if row.topic not in RECORDED_TOPICS:
                    continue
                event = parse_recorded(row)
                if after is not None and event.timestamp < after:
                    return newest_first[::-1]
                newest_first.append(event)
                if limit and len(newest_first) == limit:
                    return newest_first[::-1]
            if len(page) < _PAGE:
                break
            upper = page[-1].originator_version - 1
        return newest_first[::-1]

    # -- ADK 2.13 additions --------------------------------------------------------------

    async def get_user_state(self, *, app_name: str, user_id: str) -> dict[str, Any]:
        """The user's ``user:`` state, keys without the prefix, without opening a session."""
        check_ids(app_name, user_id)
        scoped = await self.store.call(self._reader.scoped, app_name, user_id)
        return copy_state({k[len(USER_PREFIX):]: v for k, v in scoped.items() if k.startswith(USER_PREFIX)})

    # ADK's synchronous helpers, for scripts without an event loop.

    def create_session_sync(self, **kwargs: Any) -> Session:
        return self._run_sync(self.create_session(**kwargs))

    def get_session_sync(self, **kwargs: Any) -> Optional[Session]:
        return self._run_sync(self.get_session(**kwargs))

    def list_sessions_sync(self, **kwargs: Any) -> ListSessionsResponse:
        return self._run_sync(self.list_sessions(**kwargs))

    def delete_session_sync(self, **kwargs: Any) -> None:
        return self._run_sync(self.delete_session(**kwargs))

    @staticmethod
    def _run_sync(coroutine: Any) -> Any:
        """Runs the call to its end. Inside a running event loop (ADK allows that) it runs on a
        loop of its own in a worker thread, and this thread waits: the store's work is done in
        its own threads, so nothing it needs is left waiting on the blocked loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coroutine)
        with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="session-sync") as worker:
            return worker.submit(asyncio.run, coroutine).result()


class InMemorySessionService(LogSessionService):
    """Sessions kept in this process only: for tests and throwaway runs."""

    def __init__(self) -> None:
        super().__init__(open_store("memory://"))


class SqliteSessionService(LogSessionService):
    """Sessions in one SQLite file (WAL mode); several processes may share it."""

    def __init__(self, path_or_url: str = "chronicle.db"):
        """A path, or a sqlite URL (``sqlite:///app.db``, ``sqlite+aiosqlite:///app.db``, as in ADK)."""
        super().__init__(sqlite_store(path_or_url))


class PostgresSessionService(LogSessionService):
    """Sessions in PostgreSQL, shared by runner processes on many machines."""

    def __init__(self, url: str):
        super().__init__(postgres_store(url, needed_by="PostgresSessionService"))


def session_service_from_url(url: str) -> LogSessionService:
    """A session service for memory://, sqlite:///path.db or postgresql://… URLs."""
    return service_from_url(url, LogSessionService)
