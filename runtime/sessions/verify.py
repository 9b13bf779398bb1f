"""Checking what is stored against what it must be: the one verifier, used for one session
(``verify_log``) and by ``chronicle verify`` for a whole store.

* A log's hash chain (domain/chain.py): an event edited, removed or moved breaks it. Session,
  artifact, memory and purge logs are all chained (``domain.chained``).
* The shared ``app:``/``user:`` rows each append writes (what ``get_session`` reads) against the
  scoped-state fold of the log they derive from (``projections.state.SCOPED_STATE``): the log
  is the one source; the rows are a copy kept for read-your-writes, and this says when they drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence
from uuid import UUID

from eventsourcing.persistence import StoredEvent
from pydantic_core import from_json

from domain.artifact_log import ArtifactLog
from domain.chain import BrokenLink, verify
from domain.memory_log import MemoryLog
from projections.base import fold_events
from projections.log_event import LogEvent
from projections.state import APP_STATE, SCOPED_STATE
from runtime.log_reader import LogReader
from runtime.read_models.source import LogSource
from runtime.stores import Store

_ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "<absent>"})()


def decode_payload(store: Store, state: Any) -> dict[str, Any]:
    """A stored payload's attributes, read by the store's transcoder (an SQL edit may have
    left text where bytes were)."""
    return store.application.mapper.transcoder.decode(state.encode() if isinstance(state, str) else bytes(state))


# Logs that were written unchained before they were chained: their leading events may lack links.
CHAINED_LATER = frozenset({ArtifactLog.Created.TOPIC, MemoryLog.Created.TOPIC})


# A session log's events hold JSON values only, apart from the library's timestamp (as the mapper
# writes them, ``runtime.stores.application.VersionedMapper``): pydantic-core decodes them several
# times faster than the transcoder, and reads a state value shaped like the transcoder's tags as
# the plain JSON it was.
_SESSION_TOPICS = "chronicle:SessionLog."


def _decode_json_payload(state: Any) -> dict[str, Any]:
    payload = from_json(state.encode() if isinstance(state, str) else bytes(state), cache_strings="keys")
    if not isinstance(payload, dict):
        raise ValueError("a payload is a JSON object")
    stamp = payload.get("timestamp")
    if isinstance(stamp, dict) and stamp.get("_type_") == "datetime_iso":
        payload["timestamp"] = datetime.fromisoformat(stamp["_data_"])
    return payload


def decode_rows(
    store: Store, rows: Sequence[StoredEvent], after: tuple[int, str] = (0, ""), unchained: bool | None = None
) -> tuple[list[dict[str, Any]], BrokenLink | None]:
    """The payloads of a log's stored events (in version order), and the first broken link or
    None; ``after``: (version, link) before the first row, when the rows are the log's tail;
    ``unchained``: whether the log's chain is yet to start (by default: at a log's first row, if
    its kind was written unchained before chaining)."""
    payloads = []
    for row in rows:
        try:
            json_only = row.topic.startswith(_SESSION_TOPICS)
            payloads.append(_decode_json_payload(row.state) if json_only else decode_payload(store, row.state))
        except Exception:  # noqa: BLE001 - a row that is no longer JSON was edited
            return payloads, BrokenLink(row.originator_version, "payload is not readable JSON (edited)")
    entries = [(row.originator_version, row.topic, payload) for row, payload in zip(rows, payloads)]
    if unchained is None:
        unchained = after[0] == 0 and bool(rows) and rows[0].topic in CHAINED_LATER
    return payloads, verify(entries, unchained_prefix=unchained, after=after)


def verify_rows(store: Store, rows: Sequence[StoredEvent]) -> BrokenLink | None:
    """The first broken link of a log's stored events (in version order), or None."""
    return decode_rows(store, rows)[1]


def verify_log(store: Store, log_id: UUID) -> BrokenLink | None:
    """The first broken link of one log, or None if it verifies."""
    return verify_rows(store, LogReader(store).stored_events(log_id))


@dataclass(frozen=True)
class ScopedMismatch:
    """A stored ``app:``/``user:`` value that is not what the log folds to."""

    app_name: str
    user_id: str  # '' for the app's own keys
    key: str
    stored: Any  # None when the row is missing (``reason`` says)
    folded: Any  # None when the log never wrote the key
    reason: str


class ScopedFold:
    """The log's scoped-state fold, fed batch by batch (so one pass over the log can feed other
    folds too); ``unreadable`` once a batch could not be read."""

    def __init__(self, app_name: str | None = None):
        self.app_name = app_name
        self.views: dict[tuple[str, str], Any] = {}
        self.owner: dict[str, tuple[str, str]] = {}  # a user view's key -> (app, user)
        self.unreadable = False

    def add(self, events: Sequence[LogEvent]) -> None:
        mine = [e for e in events if self.app_name is None or e.app_name == self.app_name]
        self.owner.update((e.user_key, (e.app_name, e.user_id)) for e in mine)
        fold_events(SCOPED_STATE, mine, self.views)

    def read_logs(self, store: Store, log_ids: Sequence[UUID]) -> ScopedFold:
        """Folds these session logs only (an app's or a user's), merged in log order."""
        lengths = LogReader(store).lengths(list(log_ids))  # one read for all, then each log's rows
        rows = [(p, log_id, v, t, s) for log_id in log_ids if log_id in lengths
                for p, v, t, s in store.window_rows(log_id, 1, lengths[log_id])]
        rows.sort(key=lambda row: row[0])
        try:
            events, _ = LogSource(store).decode_rows(rows, store.fork_versions(log_ids))
        except ValueError:
            self.unreadable = True
            return self
        self.add(events)
        return self

    def read(self, store: Store) -> ScopedFold:
        """Folds the whole log."""
        source, position = LogSource(store), 0
        while True:
            try:
                events, last = source.read(position, 10_000)
            except ValueError:
                self.unreadable = True
                return self
            if last == position:
                return self
            position = last
            self.add(events)


def scoped_state_mismatches(
    store: Store, app_name: str | None = None, user_id: str | None = None, scoped: ScopedFold | None = None
) -> list[ScopedMismatch]:
    """Where the stored shared-state rows differ from the log's scoped-state fold (of one app,
    one user, or the whole store; ``scoped``: that fold, already made). A user's check compares
    that user's rows only: the app's rows are written by every user's sessions, and are checked
    with the app. A log with unreadable payloads is not folded: its chain check says where it
    was edited."""
    scoped = scoped or ScopedFold(app_name).read(store)
    if scoped.unreadable:
        return []
    views, owner = scoped.views, scoped.owner
    folded: dict[tuple[str, str], dict[str, Any]] = {}
    for (fold, key), view in views.items():
        folded[(key, "") if fold == APP_STATE.name else owner[key]] = view
    apps = {app for app, _ in folded} | {r.app_name for r in LogReader(store).sessions(app_name, user_id)}
    found = []
    for app in sorted(apps):
        stored = {(app, u): values for u, values in LogReader(store).scoped_rows(app, user_id).items()}
        scopes = {scope for scope in {*stored, *(s for s in folded if s[0] == app)}
                  if user_id is None or scope[1] == user_id}
        for scope in sorted(scopes):
            have, want = stored.get(scope, {}), folded.get(scope, {})
            for key in sorted({*have, *want}):
                got, expected = have.get(key, _ABSENT), want.get(key, _ABSENT)
                if got == expected:
                    continue
                reason = (
                    "the stored row is missing" if got is _ABSENT
                    else "no event of the log wrote it" if expected is _ABSENT
                    else f"stored {got!r}, the log says {expected!r}"
                )
                found.append(ScopedMismatch(*scope, key, None if got is _ABSENT else got,
                                            None if expected is _ABSENT else expected, reason))
    return found
