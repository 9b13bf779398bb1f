"""Time travel: a session's state at any point of its history, what changed, and its timeline.

* ``state_at(session, position)`` — the session's own state, the ``app:`` and ``user:`` state
  and the artifact versions as they were at that point. The session's state and artifacts come
  from the log aggregate rebuilt at that version (the nearest snapshot plus at most a snapshot
  interval of events — never a scan of the whole history); the shared scopes and the user's
  artifacts come from the tracked read models' history rows, as of the event's position in the
  whole log.
* ``diff(session, start, end)`` — every key and artifact that changed in between, from what to
  what, with each write's event, author and session (``app:``/``user:`` keys may have been
  written by the user's other sessions).
* ``history(session)`` — the session's timeline of invocations (see ``projections.timeline``).

A position (``At``) is an event id (the state once that event was recorded), an invocation
(the state before its first event or after its last), a timestamp (the state after the last
event recorded at or before it; events are in log order and their timestamps are taken to
increase along it) or a log version.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union
from uuid import UUID

from domain.errors import InvalidArgumentError, InvocationNotFoundError, SessionNotFoundError
from domain.session_log import SessionLog, session_log_id
from domain.state import split_scopes, with_scoped
from eventsourcing.application import AggregateNotFoundError
from domain.session_log import session_artifacts
from projections.artifacts import ARTIFACTS, USER_ARTIFACTS
from projections.session_at import session_at
from projections.log_event import RECORDED, REWOUND, LogEvent
from projections.state import APP_STATE, SCOPED_STATE, USER_STATE
from projections.timeline import Timeline, fold_timeline
from runtime.log_reader import LogReader
from runtime.read_models.follower import ProjectionFollower, runner_for
from runtime.read_models.source import LogSource
from runtime.stores import Store, open_store

if TYPE_CHECKING:
    from domain.session import Session


@dataclass(frozen=True)
class At:
    """A point in one session's history; make one with the constructors below."""

    event_id: str | None = None
    invocation_id: str | None = None
    before_invocation: bool = False  # with invocation_id: before its first event (else after its last)
    timestamp: float | None = None
    version: int | None = None

    @staticmethod
    def event(event_id: str) -> At:
        """Once the event with this id was recorded."""
        return At(event_id=event_id)

    @staticmethod
    def before(invocation_id: str) -> At:
        """Just before the invocation's first event."""
        return At(invocation_id=invocation_id, before_invocation=True)

    @staticmethod
    def after(invocation_id: str) -> At:
        """Once the invocation's last event was recorded."""
        return At(invocation_id=invocation_id)

    @staticmethod
    def time(timestamp: float) -> At:
        """After the last event recorded at or before this time (seconds since the epoch)."""
        return At(timestamp=timestamp)

    @staticmethod
    def log_version(version: int) -> At:
        """After the session log's event at this version (1 is its creation)."""
        return At(version=version)

    @staticmethod
    def latest() -> At:
        return At()

    def __str__(self) -> str:
        if self.event_id is not None:
            return f"event {self.event_id}"
        if self.invocation_id is not None:
            return f"{'before' if self.before_invocation else 'after'} invocation {self.invocation_id}"
        if self.timestamp is not None:
            return f"time {self.timestamp}"
        if self.version is not None:
            return f"version {self.version}"
        return "latest"


Position = Union[At, str, float, int, None]
SessionRef = Union["Session", tuple[str, str, str]]


def as_at(position: Position) -> At:
    """An ``At`` from a loose position: a str is an event id, a float a timestamp, an int a version."""
    if position is None:
        return At()
    if isinstance(position, At):
        return position
    if isinstance(position, bool):
        raise InvalidArgumentError(f"Not a position: {position!r}")
    if isinstance(position, int):
        return At(version=position)
    if isinstance(position, float):
        return At(timestamp=position)
    if isinstance(position, str):
        return At(event_id=position)
    raise InvalidArgumentError(
        f"Not a position: {position!r}; use At.event(id), At.before(invocation), At.after(invocation),"
        " At.time(timestamp) or At.log_version(n)"
    )


@dataclass
class StateAt:
    """A session as it was at one point of its history."""

    app_name: str
    user_id: str
    session_id: str
    at: At
    version: int  # the session log's version then (1: just created)
    position: int  # how far into the whole log the shared state is read (that event's position,
    # before an invocation, the position just before its first event; latest: the end of the log)
    timestamp: float
    event_id: str | None  # the event recorded at that version (None at creation)
    author: str | None
    invocation_id: str | None
    state: dict[str, Any]  # the session's own keys
    app_state: dict[str, Any]
    user_state: dict[str, Any]
    artifacts: dict[str, int]  # the session's artifacts: filename -> latest version
    user_artifacts: dict[str, int]  # the user's (``user:`` filenames)

    @property
    def session_state(self) -> dict[str, Any]:
        """What ``get_session`` showed then: the session's keys merged with app: and user: keys."""
        return with_scoped(self.state, self.app_state, self.user_state)



@dataclass
class Write:
    """One write of a key or artifact: its value and who wrote it."""

    value: Any
    session: str  # app/user/session
    version: int
    position: int  # 0 when not known (writes read from the session's own log)
    event_id: str
    author: str
    removed: bool = False


_MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<absent>", "__bool__": lambda self: False})()


@dataclass
class Change:
    scope: str  # "session", "app", "user", "artifact" or "user_artifact"
    key: str
    before: Any  # MISSING when the key did not exist
    after: Any
    writes: list[Write] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.before is not self.after and self.before != self.after


@dataclass
class Diff:
    start: StateAt
    end: StateAt
    changes: list[Change]
    events: int  # events of the session between the two points

    def format(self) -> str:
        return format_diff(self)


MISSING = _MISSING


class TimeTravel:
    """State at any point, diffs and timelines of a store's sessions."""

    probes = 100  # versions read at once when looking for a timestamp in memory

    def __init__(self, store: Store | str):
        self.store = open_store(store) if isinstance(store, str) else store
        self.application = self.store.application
        self.reader = LogReader(self.store)
        self.source = LogSource(self.store)
        self.scoped: ProjectionFollower = runner_for(self.store, SCOPED_STATE)
        self.artifacts: ProjectionFollower = runner_for(self.store, ARTIFACTS)
        self.storage = self.scoped.storage

    def catch_up(self) -> None:
        """Brings the read models time travel reads up to the end of the log."""
        self.scoped.catch_up()
        self.artifacts.catch_up()

    # -- state at ------------------------------------------------------------------------

    def state_at(self, session: SessionRef, position: Position = None) -> StateAt:
        app_name, user_id, session_id = _identity(session)
        at = as_at(position)
        log_id = session_log_id(app_name, user_id, session_id)
        version = self._resolve(log_id, (app_name, user_id, session_id), at)
        return self._state_at(log_id, (app_name, user_id, session_id), at, version)

    async def state_at_async(self, session: SessionRef, position: Position = None) -> StateAt:
        return await self.store.call(self.state_at, session, position)

    def _state_at(self, log_id: UUID, identity: tuple[str, str, str], at: At, version: int) -> StateAt:
        app_name, user_id, session_id = identity
        mode = "before" if at.invocation_id is not None and at.before_invocation else "latest" if at == At() else "event"
        user_key = f"{app_name}/{user_id}"
        reads = [
            (SCOPED_STATE.name, APP_STATE.name, app_name),
            (SCOPED_STATE.name, USER_STATE.name, user_key),
            (ARTIFACTS.name, USER_ARTIFACTS.name, user_key),
        ]
        snapshot, window, position, positions, views = self._reads(log_id, version, mode, reads)
        state, artifacts = session_at(snapshot, window, version)
        event = next((e for e in window if e.version == version), None)
        if event is None or position is None:
            raise SessionNotFoundError(*identity)
        if min(positions.values()) < position:  # the read models are behind: bring them up first
            self.catch_up()
            positions, views = self.storage.read_at(position, reads)
        app_state, user_state, user_artifacts = views
        recorded = event.kind in (RECORDED, REWOUND)
        return StateAt(
            app_name=app_name,
            user_id=user_id,
            session_id=session_id,
            at=at,
            version=version,
            position=position,
            timestamp=event.timestamp,
            event_id=event.event_id if recorded else None,
            author=event.author if recorded else None,
            invocation_id=event.invocation_id if recorded else None,
            state=state,
            app_state=app_state,
            user_state=user_state,
            artifacts=artifacts,
            user_artifacts=user_artifacts,
        )

    def _reads(
        self, log_id: UUID, version: int, mode: str, reads: list[tuple[str, str, str]]
    ) -> tuple[tuple[int, dict[str, Any]] | None, list[LogEvent], int | None, dict[str, int], list[dict[str, Any]]]:
        """The nearest snapshot, the events from it to ``version``, the log position the shared
        state is read at, the read models' positions and the shared views as of that position
        (``Store.state_reads``: in one round trip where the store allows)."""
        snapshot, rows, position, positions, views = self.store.state_reads(log_id, version, mode, reads)
        decode = self.source._decode_row  # noqa: SLF001
        window = [e for e in (decode(p, log_id, v, t, b) for p, v, t, b in rows) if e is not None]
        return snapshot, window, position, positions, views

    def _log(self, log_id: UUID, identity: tuple[str, str, str]) -> SessionLog:
        try:
            return self.application.repository.get(log_id)
        except AggregateNotFoundError:
            raise SessionNotFoundError(*identity) from None

    def _resolve(self, log_id: UUID, identity: tuple[str, str, str], at: At) -> int:
        """The log version a position names."""
        if at.event_id is not None:
            version = self.reader.claim(log_id, at.event_id)
            if version is None:
                self._log(log_id, identity)  # a missing session says so first
                raise InvalidArgumentError(
                    f"Session {identity[2]!r} has no event {at.event_id!r}; see its events with `chronicle history`."
                )
            return version
        if at.timestamp is not None and at.invocation_id is None and at.version is None:
            searched = self.source.version_at_time(log_id, at.timestamp)  # the database searches
            if searched is not None:
                version, created_time = searched
                if version is None or created_time is None:
                    self._log(log_id, identity)  # says which session is missing
                    raise SessionNotFoundError(*identity)
                self._check_after_creation(created_time, at.timestamp, identity)
                return version
        log = self._log(log_id, identity)
        if at.invocation_id is not None:
            span = self.store.invocation_span(log_id, at.invocation_id)
            if span is None:
                raise InvocationNotFoundError(identity[2], at.invocation_id)
            return span[0] - 1 if at.before_invocation else span[1]
        if at.version is not None:
            if not 1 <= at.version <= log.version:
                raise InvalidArgumentError(
                    f"Session {identity[2]!r} has versions 1 to {log.version}, not {at.version}."
                )
            return at.version
        if at.timestamp is not None:
            return self._version_at_time(log_id, log, at.timestamp, identity)
        return log.version

    @staticmethod
    def _check_after_creation(created_time: float, timestamp: float, identity: tuple[str, str, str]) -> None:
        if timestamp < created_time:
            raise InvalidArgumentError(f"Session {identity[2]!r} was created at {created_time}, after {timestamp}.")

    def _version_at_time(self, log_id: UUID, log: SessionLog, timestamp: float, identity: tuple[str, str, str]) -> int:
        """The probing search (stores that cannot search themselves: see ``LogSource.version_at_time``)."""
        self._check_after_creation(log.created_time, timestamp, identity)
        if timestamp >= log.last_update_time:
            return log.version
        lo, hi = 1, log.version  # the event at lo is at or before the time; the one at hi after it
        while hi - lo > 1:
            # Probe many versions at once: each read narrows the range a hundredfold.
            n = self.probes
            step = max((hi - lo) / (n + 1), 1.0)
            probes = sorted({min(hi - 1, lo + max(1, round(step * k))) for k in range(1, n + 1)})
            times = self.source.timestamps(log_id, probes)
            for v in probes:
                if times.get(v, timestamp + 1) <= timestamp:
                    lo = v
                else:
                    hi = v
                    break
        return lo

    # -- diff ----------------------------------------------------------------------------

    def diff(self, session: SessionRef, start: Position, end: Position = None) -> Diff:
        identity = _identity(session)
        log_id = session_log_id(*identity)
        a, b = as_at(start), as_at(end)
        before = self._state_at(log_id, identity, a, self._resolve(log_id, identity, a))
        after = self._state_at(log_id, identity, b, self._resolve(log_id, identity, b))
        lo, hi = sorted((before, after), key=lambda s: s.version)
        events = [
            e for e in self.source.session_events(log_id, gt=lo.version, lte=hi.version)
            if e.kind in (RECORDED, REWOUND)
        ]
        writes: dict[tuple[str, str], list[Write]] = {}
        for e in events:
            who = (e.session_key, e.version, 0, e.event_id, e.author)
            for key, value in split_scopes(e.state_delta).session.items():
                writes.setdefault(("session", key), []).append(Write(value, *who))
            for filename, version in session_artifacts(e.artifact_delta).items():
                writes.setdefault(("artifact", filename), []).append(Write(version, *who))
        shared = (
            ("app", SCOPED_STATE.name, APP_STATE.name, identity[0]),
            ("user", SCOPED_STATE.name, USER_STATE.name, f"{identity[0]}/{identity[1]}"),
            ("user_artifact", ARTIFACTS.name, USER_ARTIFACTS.name, f"{identity[0]}/{identity[1]}"),
        )
        for scope, projection, fold, key in shared:
            for row in self.storage.read_history(projection, fold, key, after=lo.position, upto=hi.position):
                writes.setdefault((scope, row.item), []).append(
                    Write(row.value, row.session, row.version, row.position, row.event_id, row.author, row.removed)
                )
        views = {
            "session": (before.state, after.state),
            "app": (before.app_state, after.app_state),
            "user": (before.user_state, after.user_state),
            "artifact": (before.artifacts, after.artifacts),
            "user_artifact": (before.user_artifacts, after.user_artifacts),
        }
        changes = []
        for scope, (old, new) in views.items():
            keys = dict.fromkeys([*old, *new, *(k for s, k in writes if s == scope)])
            for key in keys:
                change = Change(scope, key, old.get(key, MISSING), new.get(key, MISSING), writes.get((scope, key), []))
                if change.writes or change.changed:
                    changes.append(change)
        return Diff(before, after, changes, len(events))

    async def diff_async(self, session: SessionRef, start: Position, end: Position = None) -> Diff:
        return await self.store.call(self.diff, session, start, end)

    # -- history -------------------------------------------------------------------------

    def history(self, session: SessionRef, *, first: int | None = None, last: int | None = None) -> Timeline:
        """The session's timeline; of its events with first <= version <= last when given."""
        identity = _identity(session)
        log_id = session_log_id(*identity)
        events = self.source.session_events(log_id, gt=None if first is None else first - 1, lte=last)
        if not events and first is None:
            raise SessionNotFoundError(*identity)
        timeline = Timeline()
        for event in events:
            timeline = fold_timeline(timeline, event)
        return timeline

    async def history_async(self, session: SessionRef) -> Timeline:
        return await self.store.call(self.history, session)


def _identity(session: SessionRef) -> tuple[str, str, str]:
    if isinstance(session, tuple) and len(session) == 3:
        return session  # type: ignore[return-value]
    from domain.session import Session  # the event model (google-genai): not for a read named by its key

    if isinstance(session, Session):
        return session.app_name, session.user_id, session.id
    raise InvalidArgumentError(f"Name a session by a Session or (app_name, user_id, session_id), not {session!r}")


def _show(value: Any, width: int = 60) -> str:
    if value is MISSING:
        return "(absent)"
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def format_diff(diff: Diff) -> str:
    a, b = diff.start, diff.end
    out = [
        f"session {a.session_id!r}: {a.at} (version {a.version}) → {b.at} (version {b.version}),"
        f" {diff.events} events in between"
    ]
    if not diff.changes:
        out.append("no changes")
    for c in diff.changes:
        label = {"session": "state", "app": "app state", "user": "user state",
                 "artifact": "artifact", "user_artifact": "user artifact"}[c.scope]
        out.append(f"{label} {c.key}: {_show(c.before)} → {_show(c.after)}")
        for w in c.writes:
            where = "" if w.session == f"{a.app_name}/{a.user_id}/{a.session_id}" else f" in session {w.session.rsplit('/', 1)[-1]}"
            out.append(f"    = {_show(w.value, 40)} by {w.author or '(genesis)'} at v{w.version}{where} (event {w.event_id or '-'})")
    return "\n".join(out)

