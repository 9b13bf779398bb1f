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
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError, OperationalError

from domain import chain as hash_chain
from domain.errors import InvalidArgumentError, StoreError
from domain.log import SessionLog
from runtime.stores import CatalogRow, Store

PURGE_LOG_ID = uuid.UUID("5d1b7f0e-2c4a-4e8b-9a61-0c7e3f2b8d41")
_ATTEMPTS = 5


class PurgeLog(Aggregate):
    """The store's operator audit log: one ``Purged`` event per purge, hash-chained."""

    TOPIC = "chronicle:PurgeLog"

    class Created(Aggregate.Created):
        TOPIC = "chronicle:PurgeLog.Created"
        digest: str
        chain: str
        created_time: float

    class Purged(Aggregate.Event):
        """What one purge destroyed, why, and who ran it."""

        TOPIC = "chronicle:PurgeLog.Purged"
        digest: str
        chain: str
        by: str
        reason: str
        scope: dict[str, Any]  # {"app_name", "user_id", "session_id"}: what was asked for
        sessions: list[dict[str, Any]]  # app_name, user_id, session_id, log_id, last_version, chain_head
        counts: dict[str, int]
        purged_time: float

        def apply(self, log: PurgeLog) -> None:
            log.chain_head = self.chain
            log.purges += 1

    def __init__(self, created_time: float, digest: str = "", chain: str = hash_chain.GENESIS):
        self.chain_head = chain
        self.purges = 0

    @classmethod
    def start(cls, created_time: float) -> PurgeLog:
        payload = {"created_time": created_time}
        digest = hash_chain.digest(cls.Created.TOPIC, payload)
        return cls._create(
            cls.Created, id=PURGE_LOG_ID, digest=digest,
            chain=hash_chain.link(hash_chain.GENESIS, cls.INITIAL_VERSION, digest), **payload,
        )

    def record(self, **payload: Any) -> None:
        digest = hash_chain.digest(self.Purged.TOPIC, payload)
        chain = hash_chain.link(self.chain_head, self.version + 1, digest)
        self.trigger_event(self.Purged, digest=digest, chain=chain, **payload)


PURGE_TOPICS = (PurgeLog.Created.TOPIC, PurgeLog.Purged.TOPIC)


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
        lines.append("  and every read-model row derived from them (projections are rebuilt).")
        lines.append("The purge itself is recorded (who, when, which sessions and their last chain link).")
        return lines


def plan_purge(
    store: Store, app_name: str, *, user_id: Optional[str] = None, session_id: Optional[str] = None
) -> PurgePlan:
    """What purging a user (``user_id``) or a session (``session_id``, with ``user_id`` to
    disambiguate) of ``app_name`` would destroy. Reads only."""
    _check_store(store)
    if user_id is None and session_id is None:
        raise InvalidArgumentError("Purge a user (user_id=...) or a session (session_id=...), of one app.")
    from runtime.artifacts.names import ArtifactScope
    from runtime.memory.log import memory_log_id

    plan = PurgePlan(app_name, user_id if session_id is None else None, session_id)
    rows = store.recorder.select_catalog(app_name, user_id)
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
        last = store.recorder.select_events(row.log_id, desc=True, limit=1)
        version, head = 0, ""
        if last:
            version = last[0].originator_version
            head = str(store.application.mapper.transcoder.decode(last[0].state).get("chain", ""))
        plan.sessions.append(PurgedSession(row, version, head, fork_of))
        _add_artifact_log(store, plan, ArtifactScope(row.app_name, row.user_id, row.session_id).log_id)
    if plan.user_id is not None:
        _add_artifact_log(store, plan, ArtifactScope(app_name, plan.user_id, None).log_id)
        mem = memory_log_id(app_name, plan.user_id)
        count = len(store.recorder.select_events(mem))
        if count:
            plan.memory_log, plan.memory_log_events = mem, count
    plan.unreferenced_blobs = _unreferenced(store, plan.blob_candidates, set(plan.artifact_logs))
    return plan


def _unreferenced(store: Store, candidates: set[str], purged_logs: set[UUID]) -> set[str]:
    """The candidates no artifact version outside ``purged_logs`` names."""
    from runtime.artifacts.log import ArtifactLog

    unreferenced, start = set(candidates), 1
    while unreferenced:
        page = store.recorder.select_notifications(start, 1000, topics=[ArtifactLog.Saved.TOPIC])
        for n in page:
            if _as_uuid(n.originator_id) not in purged_logs:
                unreferenced.discard(json.loads(n.state)["sha256"])
        if len(page) < 1000:
            break
        start = page[-1].id + 1
    return unreferenced


def _check_store(store: Store) -> None:
    if _kind(store) not in ("sqlite", "postgres"):
        raise StoreError("A purge removes rows from a database: it works on SQLite and PostgreSQL stores.")


def _kind(store: Store) -> str:
    datastore = getattr(store.recorder, "datastore", None)
    module = type(datastore).__module__ if datastore is not None else ""
    return "sqlite" if module.endswith("sqlite") else "postgres" if module.endswith("postgres") else "memory"


def _forks_of(store: Store, source: CatalogRow) -> list[tuple[CatalogRow, str]]:
    """Sessions forked (directly or not) from ``source``: they hold copies of its events."""
    forked: dict[str, list[UUID]] = {}  # source log id -> fork log ids
    start = 1
    while True:
        page = store.recorder.select_notifications(start, 1000, topics=[SessionLog.ForkedFrom.TOPIC])
        for n in page:
            payload = json.loads(n.state)
            forked.setdefault(payload["source_log_id"], []).append(_as_uuid(n.originator_id))
        if len(page) < 1000:
            break
        start = page[-1].id + 1
    catalog = {r.log_id: r for r in store.recorder.select_catalog(source.app_name)}
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
    from runtime.artifacts.log import ArtifactLog

    rows = store.recorder.select_events(log_id)
    if not rows:
        return
    plan.artifact_logs[log_id] = len(rows)
    for row in rows:
        if row.topic == ArtifactLog.Saved.TOPIC:
            plan.blob_candidates.add(json.loads(row.state)["sha256"])


def _marks(values: list[Any]) -> str:
    return ", ".join(["{p}"] * len(values))


def _as_uuid(value: Any) -> UUID:
    return value if isinstance(value, UUID) else UUID(str(value))


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
    sql = _Sql.for_store(store)
    session_ids = [s.row.log_id for s in plan.sessions]
    every_log = [*session_ids, *plan.artifact_logs, *([plan.memory_log] if plan.memory_log else [])]
    counts = {"sessions": len(plan.sessions), "artifact_logs": len(plan.artifact_logs)}
    with sql.transaction() as c:
        # The plan must still hold: a session that grew since it was read would be misreported.
        for log_id, expected in [*((s.row.log_id, s.last_version) for s in plan.sessions), *plan.artifact_logs.items()]:
            if sql.max_version(c, log_id) != expected:
                raise _PlanChanged
        position = sql.max_position(c)
        counts["stored_events"] = sum(
            sql.run(c, "DELETE FROM chronicle_events WHERE originator_id = {p}", [sql.id(i)]) for i in every_log
        )
        counts["session_events"], counts["artifact_events"] = plan.events, sum(plan.artifact_logs.values())
        counts["memory_log_events"] = plan.memory_log_events
        counts["snapshots"] = sum(
            sql.run(c, "DELETE FROM chronicle_snapshots WHERE originator_id = {p}", [sql.id(i)]) for i in every_log
        )
        counts["event_ids"] = sum(
            sql.run(c, "DELETE FROM chronicle_event_ids WHERE log_id = {p}", [sql.id(i)]) for i in session_ids
        )
        counts["catalog_rows"] = sum(
            sql.run(c, "DELETE FROM chronicle_sessions WHERE log_id = {p}", [sql.id(i)]) for i in session_ids
        )
        if plan.user_id is not None:
            counts["user_state_rows"] = sql.run(
                c, "DELETE FROM chronicle_scoped_state WHERE app_name = {p} AND user_id = {p}",
                [plan.app_name, plan.user_id],
            )
        counts.update(sql.purge_memory(c, store, plan))
        counts["blobs"] = len(plan.unreferenced_blobs)
        stored, version, purged_time = _audit_events(store, plan, by, reason, counts)
        sql.insert_events(c, stored, after=position)
    return counts, version, purged_time


def _delete_blobs(store: Store, plan: PurgePlan) -> int:
    """Removes the bytes of purged versions that no remaining version names (checked again now)."""
    gone = _unreferenced(store, plan.unreferenced_blobs, set())
    return _Sql.for_store(store).delete_blobs(store, sorted(gone)) if gone else 0


def _rebuild_projections(store: Store, plan: PurgePlan) -> tuple[list[str], list[str]]:
    """Drops every read model (they folded the purged events) and refolds the built-in ones; then
    rewrites the app:/user: state rows the purge affected from the refolded scoped state."""
    from projections.state import SCOPED_STATE
    from runtime.projections import Projector, builtin_projections, storage_for

    storage = storage_for(store)
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
    _Sql.for_store(store).rewrite_scoped(plan.app_name, sorted(users) if plan.session_id else [], rows)
    assert SCOPED_STATE.name in rebuilt
    return rebuilt, dropped


def _evict(store: Store, log_ids: Iterable[Optional[UUID]]) -> None:
    cache = store.application.repository.cache
    if cache is None:
        return
    for log_id in log_ids:
        if log_id is None:
            continue
        try:
            cache.get(log_id, evict=True)
        except KeyError:
            pass


def _erase_free_pages(store: Store) -> None:
    _Sql.for_store(store).erase_free_pages()


# -- SQL, per database -------------------------------------------------------------------


class _Sql:
    """The few statements a purge runs, for SQLite and PostgreSQL."""

    ph = "?"

    def __init__(self, store: Store):
        self.store = store
        self.recorder = store.recorder
        self.datastore = store.recorder.datastore

    @staticmethod
    def for_store(store: Store) -> _Sql:
        _check_store(store)
        return _SqliteSql(store) if _kind(store) == "sqlite" else _PostgresSql(store)

    def run(self, c: Any, sql: str, params: list[Any]) -> int:
        c.execute(sql.format(p=self.ph), params)
        return max(getattr(c, "sqlite_cursor", c).rowcount, 0)

    def max_version(self, c: Any, log_id: UUID) -> int:
        c.execute(
            f"SELECT MAX(originator_version) FROM chronicle_events WHERE originator_id = {self.ph}", [self.id(log_id)]
        )
        row = c.fetchone()
        value = row[0] if not isinstance(row, dict) else next(iter(row.values()))
        return int(value or 0)

    def purge_memory(self, c: Any, store: Store, plan: PurgePlan) -> dict[str, int]:
        """The memory index's documents and sources of the purged sessions (or of the user)."""
        if not self.has_table(c, "chronicle_memory_docs"):
            return {}
        from runtime.memory.fold import external_source
        from runtime.memory.log import memory_log_id

        counts = {"memory_docs": 0, "memory_sources": 0, "memory_events_blanked": 0}
        users = sorted({s.row.user_id for s in plan.sessions} | ({plan.user_id} if plan.user_id else set()))
        for user in users:
            owner, owner_params = "app_name = {p} AND user_id = {p}", [plan.app_name, user]
            if plan.session_id is None:  # the whole user
                docs, docs_params = owner, owner_params
                sources, sources_params = owner, owner_params
            else:
                memory_log = memory_log_id(plan.app_name, user)
                ids = [s.row.session_id for s in plan.sessions if s.row.user_id == user]
                names = [s.row.log_id.hex for s in plan.sessions if s.row.user_id == user]
                names += [external_source(memory_log.hex, i) for i in ids]
                docs = f"{owner} AND (session_id IN ({_marks(ids)}) OR source IN ({_marks(names)}))"
                docs_params = [*owner_params, *ids, *names]
                sources, sources_params = f"{owner} AND source IN ({_marks(names)})", [*owner_params, *names]
                counts["memory_events_blanked"] += self._blank_remembered(c, store, memory_log, set(ids))
            counts["memory_docs"] += self.delete_docs(c, docs, docs_params)
            counts["memory_sources"] += self.run(c, "DELETE FROM chronicle_memory_sources WHERE " + sources, sources_params)
        return counts

    def _blank_remembered(self, c: Any, store: Store, memory_log: UUID, session_ids: set[str]) -> int:
        """Text copies of the purged sessions in a memory log: emptied in place (the log stays whole)."""
        from runtime.memory.log import MemoryLog

        blanked = 0
        for row in store.recorder.select_events(memory_log):
            if row.topic != MemoryLog.Remembered.TOPIC:
                continue
            state = json.loads(row.state)
            if state.get("session_id") in session_ids and state.get("events"):
                state["events"], state["purged"] = [], True
                self.run(
                    c, "UPDATE chronicle_events SET state = {p} WHERE originator_id = {p} AND originator_version = {p}",
                    [self.blob(json.dumps(state).encode()), self.id(memory_log), row.originator_version],
                )
                blanked += 1
        return blanked

    # per database
    def id(self, log_id: UUID) -> Any:
        raise NotImplementedError

    def blob(self, data: bytes) -> Any:
        return data

    def transaction(self) -> Any:
        raise NotImplementedError

    def max_position(self, c: Any) -> int:
        raise NotImplementedError

    def insert_events(self, c: Any, stored: list[Any], after: int) -> None:
        raise NotImplementedError

    def has_table(self, c: Any, name: str) -> bool:
        raise NotImplementedError

    def delete_docs(self, c: Any, where: str, params: list[Any]) -> int:
        return self.run(c, "DELETE FROM chronicle_memory_docs WHERE " + where, params)

    def delete_blobs(self, store: Store, sha256s: list[str]) -> int:
        raise NotImplementedError

    def rewrite_scoped(self, app_name: str, users: list[str], rows: list[tuple[str, str, str, Any]]) -> None:
        raise NotImplementedError

    def erase_free_pages(self) -> None:
        raise NotImplementedError


class _SqliteSql(_Sql):
    ph = "?"

    def id(self, log_id: UUID) -> Any:
        return log_id.hex

    def transaction(self) -> Any:
        import contextlib

        @contextlib.contextmanager
        def secure() -> Any:
            with self.datastore.transaction(commit=True) as c:
                c.execute("PRAGMA secure_delete = ON")  # deleted content is overwritten with zeros
                try:
                    yield c
                finally:
                    c.execute("PRAGMA secure_delete = OFF")

        return secure()

    def insert_events(self, c: Any, stored: list[Any], after: int) -> None:
        # Positions (rowids) continue after the highest one before the purge, never reusing
        # a purged event's position that read models may already have passed.
        table = self.recorder.events_table_name
        for i, s in enumerate(stored, start=1):
            c.execute(
                f"INSERT INTO {table} (rowid, originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?, ?)",
                (after + i, s.originator_id.hex, s.originator_version, s.topic, s.state),
            )

    def max_position(self, c: Any) -> int:
        c.execute(f"SELECT MAX(rowid) FROM {self.recorder.events_table_name}")
        return int(c.fetchone()[0] or 0)

    def has_table(self, c: Any, name: str) -> bool:
        c.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [name])
        return c.fetchone() is not None

    def delete_docs(self, c: Any, where: str, params: list[Any]) -> int:
        # The FTS5 index keeps its own copy of the text: remove each document from it first.
        c.execute("SELECT id, scope, body FROM chronicle_memory_docs WHERE " + where.format(p="?"), params)
        docs = [tuple(r) for r in c.fetchall()]
        for doc in docs:
            c.execute(
                "INSERT INTO chronicle_memory_fts (chronicle_memory_fts, rowid, scope, body) VALUES ('delete', ?, ?, ?)",
                doc,
            )
        return self.run(c, "DELETE FROM chronicle_memory_docs WHERE " + where, params)

    def delete_blobs(self, store: Store, sha256s: list[str]) -> int:
        import sqlite3

        from runtime.artifacts.blobs import SqliteBlobStore

        blobs = SqliteBlobStore(self.datastore)
        try:
            if blobs.path is None:
                with self.datastore.transaction(commit=True) as c:
                    return self._delete_blob_rows(c, sha256s)
            db = sqlite3.connect(blobs.path, isolation_level=None, timeout=30)
            try:
                db.execute("PRAGMA secure_delete = ON")
                db.execute("BEGIN IMMEDIATE")
                n = self._delete_blob_rows(db.cursor(), sha256s)
                db.execute("COMMIT")
                return n
            finally:
                db.close()
        finally:
            blobs.close()

    @staticmethod
    def _delete_blob_rows(c: Any, sha256s: list[str]) -> int:
        n = 0
        for sha in sha256s:
            c.execute("SELECT data_id FROM chronicle_blobs WHERE sha256 = ?", (sha,))
            row = c.fetchone()
            if row is None:
                continue
            c.execute("DELETE FROM chronicle_blob_data WHERE id = ?", (row[0],))
            c.execute("DELETE FROM chronicle_blobs WHERE sha256 = ?", (sha,))
            n += 1
        return n

    def rewrite_scoped(self, app_name: str, users: list[str], rows: list[tuple[str, str, str, Any]]) -> None:
        with self.transaction() as c:
            c.execute("DELETE FROM chronicle_scoped_state WHERE app_name = ? AND user_id = ''", [app_name])
            for user in users:
                c.execute("DELETE FROM chronicle_scoped_state WHERE app_name = ? AND user_id = ?", [app_name, user])
            for a, u, k, v in rows:
                c.execute("INSERT INTO chronicle_scoped_state VALUES (?, ?, ?, ?)", [a, u, k, json.dumps(v)])

    def erase_free_pages(self) -> None:
        """Moves the WAL's copies of deleted pages into the (zeroed) file and truncates the WAL."""
        import sqlite3

        pool = self.datastore.pool
        if pool.is_sqlite_memory_mode:
            return
        db = sqlite3.connect(pool.db_name, isolation_level=None, timeout=30)
        try:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            db.close()


class _PostgresSql(_Sql):
    ph = "%s"

    def id(self, log_id: UUID) -> Any:
        return log_id

    def transaction(self) -> Any:
        return self.datastore.transaction(commit=True)

    def run(self, c: Any, sql: str, params: list[Any]) -> int:
        c.execute(sql.format(p="%s"), params)
        return max(c.rowcount, 0)

    def max_position(self, c: Any) -> int:
        return 0  # notification ids come from a sequence: never reused

    def insert_events(self, c: Any, stored: list[Any], after: int) -> None:
        # As every append does: the table lock keeps notification ids in commit order, and
        # followers of the log are told something was written.
        from psycopg.sql import SQL, Identifier

        table = self.recorder.events_table_name
        c.execute(SQL("LOCK TABLE {} IN EXCLUSIVE MODE").format(Identifier(table)))
        for s in stored:
            c.execute(
                SQL("INSERT INTO {} (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)")
                .format(Identifier(table)),
                (s.originator_id, s.originator_version, s.topic, s.state),
            )
        c.execute(SQL("NOTIFY {}").format(Identifier(getattr(self.recorder, "channel_name", table))))

    def has_table(self, c: Any, name: str) -> bool:
        c.execute("SELECT to_regclass(%s) AS t", [name])
        return c.fetchone()["t"] is not None

    def delete_blobs(self, store: Store, sha256s: list[str]) -> int:
        with self.datastore.transaction(commit=True) as c:
            if not self.has_table(c, "chronicle_blobs"):
                return 0
            c.execute("DELETE FROM chronicle_blobs WHERE sha256 = ANY(%s)", [sha256s])
            return max(c.rowcount, 0)

    def rewrite_scoped(self, app_name: str, users: list[str], rows: list[tuple[str, str, str, Any]]) -> None:
        from psycopg.types.json import Jsonb

        with self.datastore.transaction(commit=True) as c:
            c.execute("DELETE FROM chronicle_scoped_state WHERE app_name = %s AND user_id = ''", [app_name])
            for user in users:
                c.execute("DELETE FROM chronicle_scoped_state WHERE app_name = %s AND user_id = %s", [app_name, user])
            for a, u, k, v in rows:
                c.execute("INSERT INTO chronicle_scoped_state VALUES (%s, %s, %s, %s)", [a, u, k, Jsonb(v)])

    def erase_free_pages(self) -> None:
        tables = ["chronicle_events", "chronicle_snapshots", "chronicle_event_ids", "chronicle_sessions",
                  "chronicle_scoped_state", "chronicle_blobs", "chronicle_memory_docs", "chronicle_memory_sources"]
        with self.datastore.get_connection() as conn:
            autocommit = conn.autocommit
            conn.autocommit = True
            try:
                for table in tables:
                    exists = conn.execute("SELECT to_regclass(%s) AS t", [table]).fetchone()
                    if exists and exists["t"] is not None:
                        conn.execute(f"VACUUM {table}")
            finally:
                conn.autocommit = autocommit
