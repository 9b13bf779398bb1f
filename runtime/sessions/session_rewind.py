"""The session service's rewind path: taking a session back to just before an invocation in one
append (``LogSessionService.rewind_session``, and a rewind event appended the way google-adk's
Runner appends one), and reading where a rewind would go (``rewind_point``, ``artifact_view``).

The service delegates here; both work through the store's ``SessionLogs`` (session_logs.py).
"""

from __future__ import annotations

import uuid
from functools import partial
from typing import Any, NamedTuple, Optional
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from domain.errors import InvocationNotFoundError, SessionNotFoundError, StaleSessionError
from domain.events import Event
from domain.session import Session
from domain.session_log import SessionLog, fold_artifact_view, session_log_id
from domain.validation import check_ids
from runtime.sessions.session_logs import SessionLogs, catalog_row, copy_state
from runtime.stores import SideRows

_REWIND_ATTEMPTS = 5


def _changes(now: dict[str, Any], then: dict[str, Any]) -> dict[str, Any]:
    """The delta that takes ``now`` back to ``then`` (keys that did not exist then: None)."""
    missing = object()
    return {
        key: then.get(key)
        for key in {*now, *then}
        if now.get(key, missing) != then.get(key, missing)
    }


class RewindPoint(NamedTuple):
    """Where a rewind would take a session (``LogSessionService.rewind_point``)."""

    start: int  # the first version it would hide
    version: int  # the log's version now
    artifacts_before: dict[str, int]  # the session's files just before it: filename -> version


class SessionRewinds:
    """Rewinds of one ``LogSessionService``'s sessions (see its ``rewind_session``)."""

    def __init__(self, logs: SessionLogs):
        self._logs = logs

    async def append(self, session: Session, event: Event) -> Event:
        """A rewind appended the way google-adk's ``Runner.rewind_async`` appends it: an event whose
        ``actions.rewind_before_invocation_id`` is set. It is recorded as ``rewind_session``
        records one, so the session's state (its initial state included) is what it was before
        that invocation; its ``state_delta`` is replaced by the delta that says so. Its
        ``artifact_delta`` (the versions ADK's Runner saved the earlier bytes as) is kept and
        folded into the session's files. Raises InvocationNotFoundError, writing nothing, for an
        invocation that is not in the session's timeline."""
        marker, version, stored = await self._logs.store.call(partial(
            self._record, session.app_name, session.user_id, session.id,
            event.actions.rewind_before_invocation_id, event,
            artifact_versions=event.actions.artifact_delta, expected=session.version, describe_files=False,
        ))
        if stored:
            return marker  # this event id was already recorded: the stored event
        session.state.update(marker.actions.state_delta)
        session.events.append(marker)
        session.advance(version, marker.timestamp)
        return marker

    async def rewind(
        self, *, app_name: str, user_id: str, session_id: str, target: str,
        invocation_id: Optional[str], artifact_versions: Optional[dict[str, int]],
    ) -> Event:
        """``LogSessionService.rewind_session`` to before ``target``: the recorded marker event."""
        check_ids(app_name, user_id, session_id)
        marker = Event(author="user", invocation_id=invocation_id or f"e-{uuid.uuid4()}")
        recorded, _, _ = await self._logs.store.call(partial(
            self._record, app_name, user_id, session_id, target, marker,
            artifact_versions=artifact_versions, expected=None, describe_files=True,
        ))
        return recorded

    async def artifact_view(self, *, app_name: str, user_id: str, session_id: str) -> dict[str, int]:
        check_ids(app_name, user_id, session_id)
        return await self._logs.store.call(self._artifact_view, app_name, user_id, session_id)

    async def point(
        self, *, app_name: str, user_id: str, session_id: str, rewind_before_invocation_id: str
    ) -> RewindPoint:
        check_ids(app_name, user_id, session_id)
        return await self._logs.store.call(self._rewind_point, app_name, user_id, session_id, rewind_before_invocation_id)

    # -- in the store's thread ---------------------------------------------------------

    def _artifact_view(self, app_name: str, user_id: str, session_id: str) -> dict[str, int]:
        logs = self._logs
        log_id = session_log_id(app_name, user_id, session_id)
        with logs.lock(log_id):
            log = logs.load(log_id)
            return dict(log.artifacts) if log is not None else {}

    def _rewind_target(self, log_id: UUID, app_name: str, user_id: str, session_id: str, target: str) -> tuple[SessionLog, int]:
        """The log and the first version a rewind to before ``target`` hides (under the lock)."""
        log = self._logs.load(log_id)
        if log is None:
            raise SessionNotFoundError(app_name, user_id, session_id)
        start = log.visible_start(self._logs.store.invocation_span(log_id, target))
        if start is None:
            raise InvocationNotFoundError(session_id, target)
        return log, start

    def _rewind_point(self, app_name: str, user_id: str, session_id: str, target: str) -> RewindPoint:
        logs = self._logs
        log_id = session_log_id(app_name, user_id, session_id)
        with logs.lock(log_id):
            log, start = self._rewind_target(log_id, app_name, user_id, session_id, target)
            version = log.version
        return RewindPoint(start, version, dict(logs.state_at(log, start - 1).artifacts))

    def _record(
        self, app_name: str, user_id: str, session_id: str, target: str, marker: Event, *,
        artifact_versions: Optional[dict[str, int]], expected: Optional[int], describe_files: bool,
    ) -> tuple[Event, int, bool]:
        """Records ``marker`` as the rewind to before ``target``: (the marker, the log's version,
        whether it was stored already). ``expected`` set: an append by a writer holding the
        session at that version (stale: StaleSessionError); None: retried against other writers.
        ``describe_files``: the marker's ``artifact_delta`` is set to the files whose version
        changes (else it is kept as the caller, ADK's Runner, wrote it)."""
        logs = self._logs
        log_id = session_log_id(app_name, user_id, session_id)
        for _ in range(_REWIND_ATTEMPTS):
            with logs.lock(log_id):
                log = logs.load(log_id)
                if log is not None and expected is not None and expected != log.version:
                    duplicate = logs.stored_event(log_id, marker.id)
                    if duplicate is not None:
                        return duplicate, log.version, True
                    raise StaleSessionError(session_id, expected, log.version)
                log, start = self._rewind_target(log_id, app_name, user_id, session_id, target)
                # Replay: the log as it was just before the target (nearest snapshot + tail).
                before = logs.state_at(log, start - 1)
                # The files restored as new versions take those; files created since drop out.
                files = fold_artifact_view(dict(before.artifacts), artifact_versions)
                marker.actions.rewind_before_invocation_id = target
                marker.actions.state_delta = _changes(log.state, before.state)
                if describe_files:
                    marker.actions.artifact_delta = {
                        k: v for k, v in _changes(log.artifacts, files).items() if v is not None
                    }
                payload = marker.checked_json_dict()
                log.rewind(payload, start, copy_state(before.state), files)
                side = SideRows(
                    claims=[(log_id, marker.id, log.version)],
                    updated_sessions=[catalog_row(log, state=log.state)],
                )
                try:
                    logs.save(log, side)
                    return marker, log.version, False
                except IntegrityError:
                    duplicate = logs.stored_event(log_id, marker.id)
                    if duplicate is not None:
                        return duplicate, log.version, True
                    if expected is not None:
                        current = logs.load(log_id)
                        raise StaleSessionError(
                            session_id, expected, current.version if current else log.version
                        ) from None
                    # a writer got in first: recompute against it
        raise StaleSessionError(session_id, log.version - 1, log.version)

