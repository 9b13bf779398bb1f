"""Purge: physically remove a user's or a session's data from a store, on purpose, with an audit trail.

Normal operation never deletes anything (``delete_session`` records a deletion). A purge is the
explicit exception, for retention rules and the right to be forgotten. It removes, for each
session purged (for a user: every session of theirs in the app, deleted ones included; for a
session: it and the forks made from it):

* the session log's stored events and snapshots, its event-id claims and its catalog row;
* its artifact log (for a user, the user's ``user:`` artifact log too) and the artifact bytes
  no remaining version refers to;
* its memory: the index's documents and sources (for a user, the whole memory log; for a
  session, the text copies a memory log holds of it are blanked);
* for a user, their ``user:`` state rows.

Read models that folded the purged events are rebuilt from what remains (their rows are
dropped; the built-in ones are refolded at once), and the ``app:``/``user:`` state rows are
recomputed from the rebuilt scoped-state projection, so nothing derived from the purged events
survives. On SQLite the deleted pages are overwritten (``secure_delete``) and the WAL is
checkpointed; on PostgreSQL the tables are vacuumed.

What was purged and by whom is recorded as a ``Purged`` event in the store's operator audit
log (``PurgeLog``, hash-chained like session logs) *in the same transaction* as the deletes:
each session's id and the last link of its chain (so a copy or backup can be matched against
it), and how many rows of each kind went. Every remaining chain still verifies.
"""

from __future__ import annotations

import getpass
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError, OperationalError

from domain.errors import InvalidArgumentError, StoreError
from domain.purge_log import PURGE_LOG_ID, PurgeLog
from domain.session_log import SessionLog
from runtime.log_reader import LogReader
from runtime.stores import CatalogRow, Store
from runtime.stores.base import as_uuid

_ATTEMPTS = 5


# -- what a purge would destroy ----------------------------------------------------------


@dataclass
class PurgedSession:
    row: CatalogRow
    last_version: int
    chain_head: str
    fork_of: Optional[str] = None  # for forks purged with their source: the source's session id

    def manifest(self) -> dict[str, Any]:
        r = self.row
        entry = {"app_name": r.app_name, "user_id": r.user_id, "session_id": r.session_id,
                 "log_id": str(r.log_id), "last_version": self.last_version, "chain_head": self.chain_head}
        if self.fork_of:
            entry["fork_of"] = self.fork_of
        return entry


@dataclass
class PurgePlan:
    """What a purge destroys, read before anything is touched (``plan_purge``)."""

    app_name: str
    user_id: Optional[str]  # a user purge
    session_id: Optional[str]  # a session purge
    sessions: list[PurgedSession] = field(default_factory=list)
    artifact_logs: dict[UUID, int] = field(default_factory=dict)  # log id -> events
    memory_log: Optional[UUID] = None  # a user purge: the user's memory log
    memory_log_events: int = 0
    blob_candidates: set[str] = field(default_factory=set)  # sha256 the purged artifact versions name
    unreferenced_blobs: set[str] = field(default_factory=set)  # of those, the ones nothing else names

    @property
    def events(self) -> int:
        return sum(s.last_version for s in self.sessions)

    @property
    def scope(self) -> dict[str, Any]:
        return {"app_name": self.app_name, "user_id": self.user_id, "session_id": self.session_id}

    def describe(self) -> list[str]:
        """What will be destroyed, in words, for a confirmation prompt."""
        who = f"user {self.user_id!r} in app {self.app_name!r}" if self.session_id is None else (
            f"session {self.session_id!r} of user {self.sessions[0].row.user_id!r} in app {self.app_name!r}"
            if self.sessions else f"session {self.session_id!r}"
        )
        lines = [f"Purging {who} permanently destroys:"]
        for s in self.sessions:
            note = f", a fork of {s.fork_of}" if s.fork_of else ""
            note += ", deleted" if s.row.deleted else ""
            lines.append(f"  session {s.row.session_id} (user {s.row.user_id}): {s.last_version} events{note}")
        lines.append(f"  {sum(self.artifact_logs.values())} artifact version events in {len(self.artifact_logs)} "
                     f"artifact logs, and their bytes once no other version refers to them "
                     f"({len(self.unreferenced_blobs)} of the {len(self.blob_candidates)} blobs they name)")
        if self.memory_log is not None:
            lines.append(f"  the user's memory log ({self.memory_log_events} events) and memory index")
        else:
            lines.append("  these sessions' documents in the memory index")
        if self.user_id is not None and self.session_id is None:
            lines.append("  the user's user: state")
            lines.append("  the user's stored credentials")
        lines.append("  and every read-model row derived from them (projections are rebuilt).")
        lines.append("The purge itself is recorded (who, when, which sessions and their last chain link).")
        return lines


def plan_purge(
    store: Store, app_name: str, *, user_id: Optional[str] = None, session_id: Optional[str] = None
) -> PurgePlan:
    """What purging a user (``user_id``) or a session (``session_id``, with ``user_id`` to
    disambiguate) of ``app_name`` would destroy. Reads only."""
    store.purge_statements()  # a store that cannot purge says so before anything is read
    if user_id is None and session_id is None:
        raise InvalidArgumentError("Purge a user (user_id=...) or a session (session_id=...), of one app.")
    from domain.artifact_names import ArtifactScope
    from domain.memory_log import memory_log_id

    plan = PurgePlan(app_name, user_id if session_id is None else None, session_id)
    rows = LogReader(store).sessions(app_name, user_id)
    if session_id is None:
        chosen = [(r, None) for r in rows]
    else:
        sources = [r for r in rows if r.session_id == session_id]
        if not sources:
            raise InvalidArgumentError(f"No session {session_id!r} in app {app_name!r}; nothing to purge.")
        if len(sources) > 1:
            raise InvalidArgumentError(
                f"Session id {session_id!r} is used by several users of app {app_name!r}; name the user too."
            )
        chosen = [(sources[0], None), *_forks_of(store, sources[0])]
    for row, fork_of in chosen:
        last = LogReader(store).stored_events(row.log_id, desc=True, limit=1)
        version, head = 0, ""
        if last:
            version = last[0].originator_version
            head = str(store.application.mapper.transcoder.decode(last[0].state).get("chain", ""))
        plan.sessions.append(PurgedSession(row, version, head, fork_of))
        _add_artifact_log(store, plan, ArtifactScope(row.app_name, row.user_id, row.session_id).log_id)
    if plan.user_id is not None:
        _add_artifact_log(store, plan, ArtifactScope(app_name, plan.user_id, None).log_id)
        mem = memory_log_id(app_name, plan.user_id)
        count = len(LogReader(store).stored_events(mem))
        if count:
            plan.memory_log, plan.memory_log_events = mem, count
    plan.unreferenced_blobs = _unreferenced(store, plan.blob_candidates, set(plan.artifact_logs))
    return plan


def _unreferenced(store: Store, candidates: set[str], purged_logs: set[UUID]) -> set[str]:
    """The candidates no artifact version outside ``purged_logs`` names."""
    from domain.artifact_log import ArtifactLog

    unreferenced, start = set(candidates), 1
    while unreferenced:
        page = LogReader(store).notifications(start, 1000, topics=[ArtifactLog.Saved.TOPIC])
        for n in page:
            if as_uuid(n.originator_id) not in purged_logs:
                unreferenced.discard(json.loads(n.state)["sha256"])
        if len(page) < 1000:
            break
        start = page[-1].id + 1
    return unreferenced


def _forks_of(store: Store, source: CatalogRow) -> list[tuple[CatalogRow, str]]:
    """Sessions forked (directly or not) from ``source``: they hold copies of its events."""
    forked: dict[str, list[UUID]] = {}  # source log id -> fork log ids
    start = 1
    while True:
        page = LogReader(store).notifications(start, 1000, topics=[SessionLog.ForkedFrom.TOPIC])
        for n in page:
            payload = json.loads(n.state)
            forked.setdefault(payload["source_log_id"], []).append(as_uuid(n.originator_id))
        if len(page) < 1000:
            break
        start = page[-1].id + 1
    catalog = {r.log_id: r for r in LogReader(store).sessions(source.app_name)}
    found: list[tuple[CatalogRow, str]] = []
    todo = [source]
    while todo:
        current = todo.pop()
        for fork_id in forked.get(str(current.log_id), []):
            row = catalog.get(fork_id)
            if row is not None and all(f.log_id != fork_id for f, _ in found):
                found.append((row, current.session_id))
                todo.append(row)
    return found


def _add_artifact_log(store: Store, plan: PurgePlan, log_id: UUID) -> None:
    from domain.artifact_log import ArtifactLog

    rows = LogReader(store).stored_events(log_id)
    if not rows:
        return
    plan.artifact_logs[log_id] = len(rows)
    for row in rows:
        if row.topic == ArtifactLog.Saved.TOPIC:
            plan.blob_candidates.add(json.loads(row.state)["sha256"])


# -- doing it ----------------------------------------------------------------------------


@dataclass
class PurgeResult:
    plan: PurgePlan
    by: str
    reason: str
    purged_time: float
    counts: dict[str, int]
    audit_version: int  # the Purged event's version in the audit log
    rebuilt: list[str] = field(default_factory=list)  # projections refolded
    dropped: list[str] = field(default_factory=list)  # projections dropped, to be refolded by their owners


def purge(
    store: Store,
    app_name: str,
    *,
    user_id: Optional[str] = None,
    session_id: Optional[str] = None,
    by: Optional[str] = None,
    reason: str = "",
    progress: Callable[[str], None] = lambda step: None,
) -> PurgeResult:
    """Purges a user or a session (see the module docstring) and returns what went.

    The plan is read again inside the deleting transaction; if a session grew meanwhile the
    transaction is rolled back and the purge starts over, so the audit record is exact."""
    by = by or _os_user()
    for _ in range(_ATTEMPTS):
        plan = plan_purge(store, app_name, user_id=user_id, session_id=session_id)
        if not plan.sessions and not plan.artifact_logs and plan.memory_log is None:
            raise InvalidArgumentError(f"Nothing to purge for {_who(app_name, user_id, session_id)}.")
        progress("deleting rows")
        try:
            counts, version, purged_time = _delete(store, plan, by, reason)
        except (_PlanChanged, IntegrityError, OperationalError):  # a writer got in: read the plan again
            continue
        break
    else:
        raise StoreError("The sessions kept changing while the purge ran; stop their writers and try again.")
    _evict(store, [s.row.log_id for s in plan.sessions] + list(plan.artifact_logs) + [plan.memory_log, PURGE_LOG_ID])
    progress("removing unreferenced artifact bytes")
    counts["blobs"] = _delete_blobs(store, plan)
    if user_id is not None and session_id is None:
        counts["credentials"] = _delete_credentials(store, app_name, user_id)
    result = PurgeResult(plan, by, reason, purged_time, counts, version)
    progress("rebuilding read models")
    result.rebuilt, result.dropped = _rebuild_projections(store, plan)
    _erase_free_pages(store)
    return result


def _who(app_name: str, user_id: Optional[str], session_id: Optional[str]) -> str:
    return f"session {session_id!r} in app {app_name!r}" if session_id else f"user {user_id!r} in app {app_name!r}"


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "unknown"


class _PlanChanged(Exception):
    pass


def _audit_events(store: Store, plan: PurgePlan, by: str, reason: str, counts: dict[str, int]) -> tuple[list[Any], int, float]:
    """The audit log's new stored events (its creation the first time, and the Purged event)."""
    now = time.time()
    try:
        log = store.application.repository.get(PURGE_LOG_ID)
    except AggregateNotFoundError:
        log = PurgeLog.start(now)
    log.record(
        by=by, reason=reason, scope=plan.scope, sessions=[s.manifest() for s in plan.sessions],
        counts=counts, purged_time=now,
    )
    events = log.collect_events()
    return [store.application.mapper.to_stored_event(e) for e in events], log.version, now


def _delete(store: Store, plan: PurgePlan, by: str, reason: str) -> tuple[dict[str, int], int, float]:
    """One transaction: the deletes, then the audit event that counts them."""
    sql = store.purge_statements()
    session_ids = [s.row.log_id for s in plan.sessions]
    every_log = [*session_ids, *plan.artifact_logs, *([plan.memory_log] if plan.memory_log else [])]
    with sql.transaction() as c:
        # The plan must still hold: a session that grew since it was read would be misreported.
        for log_id, expected in [*((s.row.log_id, s.last_version) for s in plan.sessions), *plan.artifact_logs.items()]:
            if sql.max_version(c, log_id) != expected:
                raise _PlanChanged
        position = sql.max_position(c)
        deleted = sql.delete_logs(c, every_log, session_ids, plan.app_name, plan.user_id)
        counts = {
            "sessions": len(plan.sessions), "artifact_logs": len(plan.artifact_logs),
            "stored_events": deleted.pop("stored_events"), "session_events": plan.events,
            "artifact_events": sum(plan.artifact_logs.values()), "memory_log_events": plan.memory_log_events,
            **deleted,
        }
        counts.update(sql.purge_memory(c, store, plan))
        counts["blobs"] = len(plan.unreferenced_blobs)
        stored, version, purged_time = _audit_events(store, plan, by, reason, counts)
        sql.insert_events(c, stored, after=position)
    return counts, version, purged_time


def _delete_credentials(store: Store, app_name: str, user_id: str) -> int:
    """A user's credentials live outside the log (runtime.auth): a user purge removes them too."""
    return store.credential_table().delete_user(app_name, user_id)


def _delete_blobs(store: Store, plan: PurgePlan) -> int:
    """Removes the bytes of purged versions that no remaining version names (checked again now)."""
    gone = _unreferenced(store, plan.unreferenced_blobs, set())
    return store.purge_statements().delete_blobs(store, sorted(gone)) if gone else 0


def _rebuild_projections(store: Store, plan: PurgePlan) -> tuple[list[str], list[str]]:
    """Drops every read model (they folded the purged events) and refolds the built-in ones; then
    rewrites the app:/user: state rows the purge affected from the refolded scoped state."""
    from projections.state import SCOPED_STATE
    from runtime.read_models import Projector, builtin_projections

    storage = store.projection_storage()
    builtin = {p.name for p in builtin_projections()}
    dropped = [name for name in storage.names() if name not in builtin]
    for name in dropped:
        storage.drop(name)
    projector = Projector(store)
    rebuilt = []
    for name in projector.names:
        projector.rebuild(name)
        rebuilt.append(name)
    users = {plan.user_id} if plan.user_id is not None else {s.row.user_id for s in plan.sessions}
    rows: list[tuple[str, str, str, Any]] = [
        (plan.app_name, "", k, v) for k, v in projector.app_state(plan.app_name).items()
    ]
    if plan.session_id is not None:
        for user in users:
            rows += [(plan.app_name, user, k, v) for k, v in projector.user_state(plan.app_name, user).items()]
    store.purge_statements().rewrite_scoped(plan.app_name, sorted(users) if plan.session_id else [], rows)
    assert SCOPED_STATE.name in rebuilt
    return rebuilt, dropped


def _evict(store: Store, log_ids: Iterable[Optional[UUID]]) -> None:
    for log_id in log_ids:
        if log_id is not None:
            store.forget_cached(log_id)


def _erase_free_pages(store: Store) -> None:
    store.purge_statements().erase_free_pages()
