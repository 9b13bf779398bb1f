"""Importing a google-adk session database into a Chronicle store (see ``runtime.operations.adk_source`` for the
layouts read).

Each ADK session becomes a session log with the same app, user and session id: its genesis at
the session's creation time, then one recorded event per ADK event with the event's own id,
invocation id, author and timestamp. State arrives as ADK would replay it:

* the events' ``state_delta``s are recorded as they are (``app:``/``user:`` keys included);
* keys the session state (or ``app_states`` / ``user_states``) holds that no event wrote — ADK
  puts ``create_session(state=…)`` there without an event — go into the genesis state (shared
  keys into the first imported session of that app or user);
* if the state Chronicle then folds still differs from the ADK database (a value written outside
  ADK's events), one event by author ``chronicle-import`` records the difference, so the
  imported sessions show exactly the state ADK showed.

Events are stored field for field (``domain.adk_json``, the rule the bridge for stock google-adk
uses too): ADK 2.x's ``node_info``, ``output`` and ``isolation_scope`` included. A field only a
newer ADK has is kept under ``custom_metadata["adk_fields"]``. Importing is idempotent: events are
matched by id, so a second run imports nothing, and a run after the ADK database grew imports only
what is new.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from eventsourcing.application import AggregateNotFoundError

from domain.adk_json import from_adk_json
from domain.errors import ChronicleError, InvalidArgumentError
from domain.events import Event, EventActions
from domain.session_log import RECORDED_TOPICS, SessionLog, session_log_id
from domain.state import check_json_state, is_temp, split_scopes, without_temp
from domain.validation import check_ids
from runtime.log_reader import LogReader
from runtime.stores import CatalogRow, SideRows, Store
from runtime.operations.adk_source import AdkSession, AdkSource

IMPORT_AUTHOR = "chronicle-import"
CHUNK = 200  # events per transaction
_NAMESPACE = uuid.UUID("8c2d4e61-0f3a-4b7c-9e15-3a6b2d9f4c70")


@dataclass
class ImportReport:
    source: str
    layout: str
    sessions_found: int = 0
    sessions_created: int = 0
    sessions_extended: int = 0  # existed, got new events
    sessions_unchanged: int = 0
    events_imported: int = 0
    events_present: int = 0  # already in the store
    reconciled: int = 0  # state differences recorded by chronicle-import events
    fields_kept: int = 0  # events with fields kept under custom_metadata.adk_fields
    skipped: list[str] = field(default_factory=list)  # sessions or events not imported, and why
    dry_run: bool = False


def to_event(data: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """An ADK event dict as Chronicle's stored event JSON; True when unknown fields were kept."""
    data, kept = from_adk_json(data)
    event = Event.model_validate(data)
    delta = dict(event.actions.state_delta)
    check_json_state(delta, "state_delta")
    event.actions.state_delta = without_temp(delta)
    return event.checked_json_dict(), kept


class Importer:
    """Imports one ADK source into one store (see the module docstring)."""

    def __init__(self, store: Store, source: AdkSource, *, dry_run: bool = False):
        self.store, self.source, self.dry_run = store, source, dry_run
        self.report = ImportReport(source.url, source.layout, dry_run=dry_run)
        self._app_seeded: set[str] = set()
        self._user_seeded: set[tuple[str, str]] = set()

    def run(self, app_name: Optional[str] = None, on_session: Callable[[int, int], None] = lambda i, n: None) -> ImportReport:
        sessions = self.source.sessions(app_name)
        self.report.sessions_found = len(sessions)
        loaded = []
        for session in sessions:
            try:
                check_ids(session.app_name, session.user_id, session.session_id)
            except InvalidArgumentError as e:
                self.report.skipped.append(f"session {session.session_id!r}: {e}")
                continue
            loaded.append((session, self._events(session)))
        written_app = self._keys_written(loaded, by_user=False)
        written_user = self._keys_written(loaded, by_user=True)
        last_of_user: dict[tuple[str, str], AdkSession] = {}
        for i, (session, events) in enumerate(loaded, start=1):
            self._import_session(session, events, written_app, written_user)
            last_of_user[(session.app_name, session.user_id)] = session
            on_session(i, len(loaded))
        if not self.dry_run:
            for (app, user), session in last_of_user.items():
                self._reconcile_shared(session, app, user)
        return self.report

    # -- reading -------------------------------------------------------------------------

    def _events(self, session: AdkSession) -> list[dict[str, Any]]:
        events = []
        for raw in self.source.events(session):
            if raw.get("partial"):
                continue  # ADK never meant to keep these
            try:
                payload, kept = to_event(raw)
            except (ValueError, ChronicleError) as e:
                self.report.skipped.append(
                    f"event {raw.get('id')!r} of session {session.session_id!r}: {' '.join(str(e).split())[:300]}"
                )
                continue
            self.report.fields_kept += kept
            events.append(payload)
        return events

    @staticmethod
    def _keys_written(loaded: list[tuple[AdkSession, list[dict[str, Any]]]], *, by_user: bool) -> dict[Any, set[str]]:
        written: dict[Any, set[str]] = {}
        for session, events in loaded:
            key = (session.app_name, session.user_id) if by_user else session.app_name
            for event in events:
                scoped = split_scopes((event.get("actions") or {}).get("state_delta"))
                written.setdefault(key, set()).update(scoped.user if by_user else scoped.app)
        return written

    # -- writing -------------------------------------------------------------------------

    def _import_session(self, session: AdkSession, events: list[dict[str, Any]],
                        written_app: dict[Any, set[str]], written_user: dict[Any, set[str]]) -> None:
        log_id = session_log_id(session.app_name, session.user_id, session.session_id)
        try:
            log: Optional[SessionLog] = self.store.application.repository.get(log_id)
        except AggregateNotFoundError:
            log = None
        if log is not None and log.deleted:
            self.report.skipped.append(f"session {session.session_id!r}: deleted in this store, left as it is")
            return
        present = self._present_ids(log_id) if log is not None else set()
        new = [e for e in events if e["id"] not in present]
        self.report.events_present += len(events) - len(new)
        if log is None:
            self.report.sessions_created += 1
        elif new:
            self.report.sessions_extended += 1
        else:
            self.report.sessions_unchanged += 1
        self.report.events_imported += len(new)
        if self.dry_run:
            return
        side = SideRows()
        if log is None:
            genesis = self._genesis_state(session, events, written_app, written_user)
            created = min([session.create_time or time.time(), *(e["timestamp"] for e in events[:1])])
            log = SessionLog.start(session.app_name, session.user_id, session.session_id, genesis, created)
            scoped = split_scopes(genesis)
            side.new_sessions.append(catalog_row(log))
            side.scoped += _scoped_rows(session, scoped)
        elif not new:
            self._reconcile_session(log, session)
            return
        for start in range(0, max(len(new), 1), CHUNK):
            for payload in new[start:start + CHUNK]:
                log.record(payload)
                side.claims.append((log.id, payload["id"], log.version))
                side.scoped += _scoped_rows(session, split_scopes(payload["actions"].get("state_delta")))
            if side.new_sessions:
                side.new_sessions = [catalog_row(log)]
            else:
                side.updated_sessions = [catalog_row(log)]
            self.store.save(log, side)
            side = SideRows()
        self._reconcile_session(log, session)

    def _present_ids(self, log_id: uuid.UUID) -> set[str]:
        from pydantic_core import from_json

        ids = set()
        for row in LogReader(self.store).stored_events(log_id):
            if row.topic in RECORDED_TOPICS:
                ids.add(from_json(row.state)["event"]["id"])
        return ids

    def _genesis_state(self, session: AdkSession, events: list[dict[str, Any]],
                       written_app: dict[Any, set[str]], written_user: dict[Any, set[str]]) -> dict[str, Any]:
        """The session's keys no event wrote, and (for the first session of an app or user) the
        shared keys no event of theirs wrote."""
        written = set()
        for event in events:
            written.update(split_scopes((event.get("actions") or {}).get("state_delta")).session)
        genesis = {k: v for k, v in session.state.items() if k not in written and not is_temp(k)}
        user = (session.app_name, session.user_id)
        present = LogReader(self.store).scoped(*user)  # what earlier imports already brought
        if session.app_name not in self._app_seeded:
            self._app_seeded.add(session.app_name)
            genesis.update({k: v for k, v in self.source.app_state(session.app_name).items()
                            if k not in written_app.get(session.app_name, set()) and present.get(k, _ABSENT) != v})
        if user not in self._user_seeded:
            self._user_seeded.add(user)
            genesis.update({k: v for k, v in self.source.user_state(*user).items()
                            if k not in written_user.get(user, set()) and present.get(k, _ABSENT) != v})
        return genesis

    def _reconcile_session(self, log: SessionLog, session: AdkSession) -> None:
        delta = {k: v for k, v in session.state.items() if not is_temp(k) and log.state.get(k, _ABSENT) != v}
        if delta:
            self._record_reconciliation(log, session, delta)

    def _reconcile_shared(self, session: AdkSession, app: str, user: str) -> None:
        now = LogReader(self.store).scoped(app, user)
        wanted = {**self.source.app_state(app), **self.source.user_state(app, user)}
        delta = {k: v for k, v in wanted.items() if now.get(k, _ABSENT) != v}
        if not delta:
            return
        log_id = session_log_id(app, user, session.session_id)
        try:
            log = self.store.application.repository.get(log_id)
        except AggregateNotFoundError:
            return
        if not log.deleted:
            self._record_reconciliation(log, session, delta)

    def _record_reconciliation(self, log: SessionLog, session: AdkSession, delta: dict[str, Any]) -> None:
        event = Event(
            id=str(uuid.uuid5(_NAMESPACE, f"{log.id}:{log.version}")),
            invocation_id="adk-import",
            author=IMPORT_AUTHOR,
            timestamp=max(log.last_update_time, session.update_time),
            actions=EventActions(state_delta=delta),
            custom_metadata={"adk_import": {"reason": "state in the ADK database that its events do not explain"}},
        ).to_json_dict()
        log.record(event)
        side = SideRows(
            claims=[(log.id, event["id"], log.version)],
            updated_sessions=[catalog_row(log)],
            scoped=_scoped_rows(session, split_scopes(delta)),
        )
        self.store.save(log, side)
        self.report.reconciled += 1


_ABSENT = object()


def catalog_row(log: SessionLog) -> CatalogRow:
    """The catalog row of a log written in bulk (an import, a benchmark's store)."""
    return CatalogRow(log.id, log.app_name, log.user_id, log.session_id, log.created_time, log.last_update_time,
                      log.version, log.deleted, dict(log.state))


def _scoped_rows(session: AdkSession, scoped: Any) -> list[tuple[str, str, str, Any]]:
    return [(session.app_name, "", k, v) for k, v in scoped.app.items()] + [
        (session.app_name, session.user_id, k, v) for k, v in scoped.user.items()
    ]
