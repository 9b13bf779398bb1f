"""Checking a store: every hash chain (each session log, artifact log and memory log, and the
operator audit log of purges), and every row derived from the logs (``audit``).

A chain breaks where a stored event was edited, removed or moved (``domain.chain``; checked by
``runtime.sessions.verify``, the one verifier). Beyond
the chain, each session log is compared with its catalog row: events missing from the end of
a log (which no later link can reveal) show up as a log shorter than the catalog says, and a
session log without a catalog row, or a catalog row without a log, is reported too. The shared
``app:``/``user:`` rows are checked against the log's fold of them (``scoped_state_mismatches``),
and every other derived row is recomputed from the log and compared (``runtime.operations.recheck``:
snapshots, catalog rows, the artifact versions sessions name, blobs, the memory index, read models).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional, Sequence
from uuid import UUID

from pydantic_core import from_json

from domain.artifact_log import ArtifactLog
from domain.artifact_names import ArtifactScope
from domain.checkpoint_log import CHECKPOINT_LOG_ID
from domain.memory_log import MemoryLog, memory_log_id
from domain.purge_log import PURGE_LOG_ID
from domain.session_log import SessionLog, session_log_id
from domain.errors import StoreCorruptError, StoreError
from runtime.gc_pause import gc_paused
from runtime.log_reader import LogReader
from runtime.operations.read_ahead import read_ahead
from runtime.operations.recheck import Drift, Recheck, read_model_drifts, surviving
from runtime.sessions.verify import (
    CHAINED_LATER, ScopedFold, ScopedMismatch, decode_payload, decode_rows, scoped_state_mismatches,
)
from runtime.stores import CatalogRow, Store
from runtime.stores.base import as_uuid


# The kinds of log, by what their genesis event's topic says.
SESSION, ARTIFACTS, MEMORY, PURGES = "session", "artifacts", "memory", "purges"
_KINDS = {SessionLog.Created.TOPIC: SESSION, ArtifactLog.Created.TOPIC: ARTIFACTS, MemoryLog.Created.TOPIC: MEMORY}


@dataclass(frozen=True)
class Broken:
    """The first broken link of one log."""

    log_id: str
    app_name: Optional[str]
    user_id: Optional[str]
    session_id: Optional[str]  # None for the purge audit log, a memory log and a user's artifacts
    version: int
    reason: str
    event_id: Optional[str] = None  # the ADK event stored at that version, when there is one
    kind: str = SESSION
    found: Optional[str] = None  # at a broken chain link: what is stored, and what the chain expects
    expected: Optional[str] = None

    @property
    def where(self) -> str:
        whose = f"app {self.app_name}, user {self.user_id}, log {self.log_id}"
        if self.kind == PURGES:
            return f"the purge audit log (log {self.log_id})"
        if self.kind == MEMORY:
            return f"the memory of user {self.user_id} ({whose})"
        if self.kind == ARTIFACTS:
            owner = f"session {self.session_id}" if self.session_id is not None else f"user {self.user_id}"
            return f"the artifacts of {owner} ({whose})"
        return f"session {self.session_id} ({whose})"


@dataclass
class Report:
    logs: int = 0
    events: int = 0
    broken: list[Broken] = field(default_factory=list)
    scoped: list[ScopedMismatch] = field(default_factory=list)  # shared-state rows that drifted from the log
    drifted: list[Drift] = field(default_factory=list)  # other derived rows that are not what the log says
    corrupt: list[str] = field(default_factory=list)  # the database's own check: damaged pages, indexes
    notes: list[str] = field(default_factory=list)  # worth saying, not wrong (artifacts of a session that never was)
    restore: Optional[str] = None  # with ``corrupt``: what to restore
    since: Optional[int] = None  # an incremental check: what was appended after this log position
    position: Optional[int] = None  # ... up to this one (the next incremental check starts here)

    @property
    def ok(self) -> bool:
        return not self.broken and not self.scoped and not self.drifted and not self.corrupt


@dataclass(frozen=True)
class _Log:
    log_id: UUID
    app_name: Optional[str] = None
    user_id: Optional[str] = None
    session_id: Optional[str] = None
    catalog: Optional[CatalogRow] = None  # None: no catalog row
    kind: str = SESSION

    @property
    def catalog_version(self) -> Optional[int]:
        return None if self.catalog is None else self.catalog.version


def logs_to_check(store: Store, app_name: str | None = None, user_id: str | None = None,
                  session_id: str | None = None) -> list[_Log]:
    """The whole store: session logs named by the catalog or by a stored genesis event, then the
    artifact and memory logs their genesis events name, and the purge audit log. A part of it
    (``scoped_logs``): only what that part holds."""
    if app_name is not None or user_id is not None or session_id is not None:
        return scoped_logs(store, app_name, user_id, session_id)
    logs: dict[UUID, _Log] = {}
    for row in LogReader(store).sessions(app_name, user_id):
        if session_id is None or row.session_id == session_id:
            logs[row.log_id] = _Log(row.log_id, row.app_name, row.user_id, row.session_id, row)
    for kind, log_id, payload in _geneses(store):
        owner = payload.get("session_id")
        if log_id in logs or (app_name and payload.get("app_name") != app_name) or (
            user_id and payload.get("user_id") != user_id
        ) or (session_id and (kind == MEMORY or owner != session_id)):
            continue
        logs[log_id] = _Log(log_id, payload.get("app_name", "?"), payload.get("user_id", "?"), owner, kind=kind)
    found = sorted(logs.values(), key=lambda log: list(_KINDS.values()).index(log.kind))
    if session_id is None and LogReader(store).stored_events(PURGE_LOG_ID, limit=1):
        found.append(_Log(PURGE_LOG_ID, kind=PURGES))
    return found


def scoped_logs(store: Store, app_name: str | None, user_id: str | None, session_id: str | None) -> list[_Log]:
    """The logs of one app, user or session, found by their derived ids from the catalog's rows
    of that scope (an index read), never by reading every genesis: each session's log and its
    artifact log, and (without ``session_id``) each user's memory log and user artifact log. A log
    whose catalog row is gone is found by name only when the session is named in full; the whole
    store's verify finds every other such log."""
    reader = LogReader(store)
    if session_id is not None and app_name is not None and user_id is not None:
        row = reader.session(app_name, user_id, session_id)
        rows = [row] if row is not None else []
        named = session_log_id(app_name, user_id, session_id)
        if row is None and reader.stored_events(named, limit=1):
            return [_Log(named, app_name, user_id, session_id)] + _existing(
                store, [(ArtifactScope(app_name, user_id, session_id).log_id, ARTIFACTS, app_name, user_id, session_id)])
    else:
        rows = [r for r in reader.sessions(app_name, user_id) if session_id is None or r.session_id == session_id]
    sessions = [_Log(r.log_id, r.app_name, r.user_id, r.session_id, r) for r in rows]
    others = [(ArtifactScope(r.app_name, r.user_id, r.session_id).log_id, ARTIFACTS, r.app_name, r.user_id, r.session_id)
              for r in rows]
    if session_id is None:
        for app, user in sorted({(r.app_name, r.user_id) for r in rows}):
            others.append((ArtifactScope(app, user, None).log_id, ARTIFACTS, app, user, None))
            others.append((memory_log_id(app, user), MEMORY, app, user, None))
    return sessions + _existing(store, others)


def _existing(store: Store, candidates: list[tuple[UUID, str, str, str, Optional[str]]]) -> list[_Log]:
    """Those candidate logs that have a genesis of their kind (which have events: one read for
    all; then an indexed read of each one's genesis)."""
    found = []
    stored = LogReader(store).lengths([candidate[0] for candidate in candidates])
    for log_id, kind, app, user, session in candidates:
        first = LogReader(store).stored_events(log_id, limit=1) if log_id in stored else []
        if first and _KINDS.get(first[0].topic) == kind:
            found.append(_Log(log_id, app, user, session, kind=kind))
    return sorted(found, key=lambda log: list(_KINDS.values()).index(log.kind))


def _geneses(store: Store) -> Iterator[tuple[str, UUID, dict[str, Any]]]:
    start = 1
    while True:
        page = LogReader(store).notifications(start, 1000, topics=list(_KINDS))
        for n in page:
            try:
                payload = from_json(n.state)
            except ValueError:
                payload = {"app_name": "?", "user_id": "?", "session_id": "?"}
            if not isinstance(payload, dict):
                payload = {"app_name": "?", "user_id": "?", "session_id": "?"}
            yield _KINDS[n.topic], as_uuid(n.originator_id), payload
        if len(page) < 1000:
            return
        start = page[-1].id + 1


# Rows read, decoded and checked at a time: a long log is checked in windows, so checking it
# holds one window of its events, never all of them.
WINDOW = 200


# Short logs are read many at a time: a batch's rows, snapshots and claims in one read of each (on
# PostgreSQL, one round trip), a batch holding at most PAGE rows; a longer log is read alone.
PAGE = 1_000


def readers(store: Store, log_ids: Sequence[UUID]) -> Iterator[LogReader]:
    """The reader to check each of ``log_ids`` through, in order: for a log of at most a window
    of rows, a ``BatchReader`` holding it and its neighbours; for a longer one, a plain reader.
    Where the store gains by it (``Store.prefetches``), the next batch is read while this one is
    checked."""
    reader = LogReader(store)

    def read(group: tuple[list[UUID], bool]) -> LogReader:
        ids, held = group
        return reader.batch(ids) if held else reader

    groups = _groups(reader, log_ids)
    with read_ahead(store) as load:
        group = next(groups, None)
        ahead = load(read, group) if group is not None else None
        while group is not None and ahead is not None:
            size, held = len(group[0]), ahead.result()
            group = next(groups, None)
            ahead = load(read, group) if group is not None else None
            yield from (held for _ in range(size))


def _groups(reader: LogReader, log_ids: Sequence[UUID]) -> Iterator[tuple[list[UUID], bool]]:
    """``log_ids`` in order, in groups: (short logs of at most PAGE rows in all, True), or (one
    log longer than a window, False); their lengths read a PAGE of logs at a time."""
    for start in range(0, len(log_ids), PAGE):
        chunk = log_ids[start:start + PAGE]
        lengths = reader.lengths(chunk)
        group: list[UUID] = []
        rows = 0
        for log_id in chunk:
            length = lengths.get(log_id, 0)
            if length <= WINDOW and rows + length <= PAGE:
                group.append(log_id)
                rows += length
                continue
            if group:
                yield group, True
            if length > WINDOW:
                group, rows = [], 0
                yield [log_id], False
            else:
                group, rows = [log_id], length
        if group:
            yield group, True


def check_log(store: Store, log: _Log, recheck: Optional[Recheck] = None,
              reader: Optional[LogReader] = None) -> tuple[int, Optional[Broken]]:
    """(events read, the first broken link or None); with ``recheck``, the log's derived rows are
    compared with its fold too. Read, checked and refolded a window of rows at a time, through
    ``reader`` (one that may hold the log already: ``readers``)."""
    reader = reader or LogReader(store)
    refold = _Refold(recheck, log, reader) if recheck is not None else None
    first: Optional[Broken] = None
    count, last, after, unchained = 0, 0, (0, ""), None
    while True:
        rows = reader.stored_events(log.log_id, gt=last or None, limit=WINDOW)
        if not rows:
            break
        count += len(rows)
        with gc_paused():  # a window's payloads and fold: many objects, no cycles
            payloads, link = decode_rows(store, rows, after=after, unchained=unchained)
            if refold is not None:
                refold.add(rows, payloads, last=len(rows) < WINDOW)
        if first is None and link is not None:
            first = _broken(reader, log, rows, link.version, link.reason, link.found, link.expected)
        last = rows[-1].originator_version
        if first is None:
            after, unchained = _carried(rows, payloads, after, unchained)
        if len(rows) < WINDOW:
            break
    if refold is not None and count:  # (a log without rows has nothing to refold)
        refold.finish(broken=first is not None)
    if not count:
        return 0, _broken(reader, log, [], 1, "the log has no events at all (its rows were removed)")
    if first is not None:
        return count, first
    if log.kind == SESSION and log.catalog_version is None:
        return count, _broken(reader, log, [], last,
                              "the session catalog has no row for this log (removed outside Chronicle)")
    if log.catalog_version is not None and last < log.catalog_version:
        return count, _broken(
            reader, log, [], last + 1, f"versions {last + 1}–{log.catalog_version} are missing from the end of "
            f"the log (the catalog records version {log.catalog_version})"
        )
    if log.catalog_version is not None and last > log.catalog_version:
        return count, _broken(reader, log, [], log.catalog_version + 1,
                              f"the catalog records version {log.catalog_version} but the log holds {last}")
    return count, None


def _carried(rows: Any, payloads: list[dict[str, Any]], after: tuple[int, str],
             unchained: Optional[bool]) -> tuple[tuple[int, str], Optional[bool]]:
    """Where the chain of a log that held up to this window goes on from: (the window's last
    version, its last link), and whether the chain is still to start (a log written unchained
    before chaining)."""
    chain = payloads[-1].get("chain")
    unchained = chain is None and (unchained if unchained is not None else rows[0].topic in CHAINED_LATER)
    return (rows[-1].originator_version, after[1] if chain is None else str(chain)), unchained


def _broken(reader: LogReader, log: _Log, rows: Any, version: int, reason: str, found: Optional[str] = None,
            expected: Optional[str] = None) -> Broken:
    """The log's broken link at ``version`` (with the ADK event's id stored there, if any)."""
    event_id = None
    for row in rows or reader.stored_events(log.log_id, gt=version - 1, lte=version):
        if row.originator_version == version and row.topic == SessionLog.Recorded.TOPIC:
            try:
                event_id = decode_payload(reader.store, row.state)["event"]["id"]
            except Exception:  # noqa: BLE001 - an unreadable row has no id to show
                pass
    return Broken(str(log.log_id), log.app_name, log.user_id, log.session_id, version, reason, event_id, log.kind,
                  found, expected)


class _Refold:
    """A log's derived rows refolded window by window (``Recheck``). A log with a payload that
    does not decode is not refolded (its chain says where it was edited); one whose events do
    not fold is a drift that says so."""

    def __init__(self, recheck: Recheck, log: _Log, reader: LogReader):
        self.recheck, self.log = recheck, log
        self.session = recheck.session(log, reader) if log.kind == SESSION else None
        self.others: list[tuple[str, dict[str, Any]]] = []  # (topic, payload) of the other kinds' logs
        self.failed: Optional[Exception] = None
        self.unreadable = False

    def add(self, rows: Any, payloads: list[dict[str, Any]], *, last: bool) -> None:
        if len(payloads) != len(rows):
            self.unreadable = True
        if self.unreadable or self.failed is not None:
            return
        if self.session is None:
            self.others += zip((r.topic for r in rows), payloads)
            return
        self._folding(lambda: self.session.add(rows, payloads, last=last))  # type: ignore[union-attr]

    def finish(self, *, broken: bool) -> None:
        recheck, log = self.recheck, self.log
        if not self.unreadable and self.failed is None:
            if self.session is not None:
                self._folding(self.session.finish)
            elif log.kind == ARTIFACTS:
                self._folding(lambda: recheck.artifacts(log, self.others))
            elif log.kind == MEMORY:
                self._folding(lambda: recheck.memory(log, self.others))
            else:
                self._folding(lambda: recheck.purges(self.others))
        if self.unreadable and self.session is not None:
            self.session.discard()
        if self.failed is not None and not self.unreadable and not broken:  # else the break says it
            where = Broken(str(log.log_id), log.app_name, log.user_id, log.session_id, 0, "", kind=log.kind).where
            recheck.drift("log", where, f"its events do not fold: {self.failed!r}", str(log.log_id))

    def _folding(self, step: Callable[[], None]) -> None:
        try:
            step()
        except StoreError:
            raise
        except Exception as e:  # noqa: BLE001 - a payload edited into something the fold cannot take
            self.failed = e


def verify_store(
    store: Store, logs: list[_Log], on_log: Callable[[int], None] = lambda n: None, recheck: Optional[Recheck] = None
) -> Report:
    """Every chain of ``logs`` (and, with ``recheck``, each log's derived rows)."""
    report = Report()
    for i, (log, reader) in enumerate(zip(logs, readers(store, [log.log_id for log in logs])), start=1):
        events, broken = check_log(store, log, recheck, reader)
        report.logs += 1
        report.events += events
        if broken is not None:
            report.broken.append(broken)
        on_log(i)
    return report


def audit(
    store: Store, app_name: str | None = None, user_id: str | None = None, session_id: str | None = None,
    logs: Optional[list[_Log]] = None, on_log: Callable[[int], None] = lambda n: None,
    integrity: Optional[bool] = None,
) -> Report:
    """Everything ``chronicle verify`` checks, for the whole store or the part named: the
    database's own integrity check (``integrity``; by default with the whole store), every chain,
    and every derived row recomputed from the log. ``logs``: those ``logs_to_check`` names (read
    here when not given); ``on_log`` hears each one done. A damaged database is a report with
    ``corrupt`` (and what to restore), never a store error."""
    whole_store = app_name is None and user_id is None and session_id is None
    with read_ahead(store) as load:  # (where the database gains by it, it checks itself meanwhile)
        checked = load(_integrity, store) if (whole_store if integrity is None else integrity) else None
        try:
            report = _audit(store, app_name, user_id, session_id, logs, on_log)
        except Exception as error:  # noqa: BLE001 - a driver's error is typed, then judged
            report = corrupt_report(store, error, checked.result() if checked is not None else [])
        corrupt = checked.result() if checked is not None else []
    if corrupt:
        report.corrupt, report.restore = corrupt, store.restore_hint
    return report


def audit_since(store: Store, after: int, on_log: Callable[[int], None] = lambda n: None) -> Report:
    """An incremental check: the chain of everything appended after log position ``after`` (a
    position an earlier verify reported, or the last seal's), each log from its first new event
    on, linked from the stored link before it (which the earlier check covered), and each session
    log's length against its catalog row. Costs what was appended, not what the store holds; the
    derived rows (snapshots, claims, read models, shared state) are recomputed by a full verify."""
    report = Report(since=after)
    try:
        firsts, report.position = _appended_since(store, after)
        for i, ((log_id, first), reader) in enumerate(zip(firsts.items(), readers(store, list(firsts))), start=1):
            events, broken = _check_tail(store, _named(reader, log_id), first, reader)
            report.logs += 1
            report.events += events
            if broken is not None:
                report.broken.append(broken)
            on_log(i)
    except Exception as error:  # noqa: BLE001 - a driver's error is typed, then judged
        return corrupt_report(store, error)
    return report


def _appended_since(store: Store, after: int) -> tuple[dict[UUID, int], int]:
    """{log id: its first version after log position ``after``} and the last position read."""
    firsts: dict[UUID, int] = {}
    position = after
    while True:
        rows = store.log_rows(position, 10_000, None)
        for row_position, raw_id, version, _, _ in rows:
            log_id = as_uuid(raw_id)
            if log_id != CHECKPOINT_LOG_ID:  # the seals' own log: `verify --key` checks it
                firsts.setdefault(log_id, version)
            position = max(position, int(row_position))
        if len(rows) < 10_000:
            return firsts, position


def _named(reader: LogReader, log_id: UUID) -> _Log:
    """The log as its genesis names it (and its catalog row, for a session)."""
    if log_id == PURGE_LOG_ID:
        return _Log(log_id, kind=PURGES)
    genesis = reader.stored_events(log_id, limit=1)
    try:
        payload = from_json(genesis[0].state) if genesis else {}
    except ValueError:
        payload = {}
    kind = _KINDS.get(genesis[0].topic, SESSION) if genesis else SESSION
    app, user, session = payload.get("app_name"), payload.get("user_id"), payload.get("session_id")
    catalog = reader.session(app, user, session) if kind == SESSION and app and user and session else None
    return _Log(log_id, app, user, session, catalog, kind)


def _check_tail(store: Store, log: _Log, first: int, reader: LogReader) -> tuple[int, Optional[Broken]]:
    """(events read, the first broken link or None) of the log from version ``first`` on,
    chained on from the stored link before it; read and checked a window at a time."""
    before = reader.link(log.log_id, first - 1) if first > 1 else ""
    if before is None:  # no stored link to start from (a log written before chaining): all of it
        return check_log(store, log, reader=reader)
    count, last, after, unchained, link = 0, first - 1, (first - 1, before), None, None
    while True:
        rows = reader.stored_events(log.log_id, gt=last, limit=WINDOW)
        count += len(rows)
        if rows and link is None:  # past a break, the rest is only counted
            with gc_paused():
                payloads, link = decode_rows(store, rows, after=after, unchained=unchained)
            if link is None:
                after, unchained = _carried(rows, payloads, after, unchained)
        last = rows[-1].originator_version if rows else last
        if len(rows) < WINDOW:
            break
    where = lambda version, reason, found=None, expected=None: Broken(  # noqa: E731
        str(log.log_id), log.app_name, log.user_id, log.session_id, version, reason, None, log.kind, found, expected)
    if link is not None:
        return count, where(link.version, link.reason, link.found, link.expected)
    if log.kind == SESSION and log.catalog_version is not None and last != log.catalog_version:
        return count, where(min(last, log.catalog_version) + 1,
                            f"the catalog records version {log.catalog_version} but the log holds {last}")
    return count, None


def corrupt_report(store: Store, error: Exception, found: Optional[list[str]] = None) -> Report:
    """The report for an audit an error stopped: physical corruption when the database's check
    (or the error itself) says so; any other error is raised again (a driver's as its typed
    store error)."""
    typed = error if isinstance(error, StoreError) else store.typed_error(error)
    if typed is None:
        raise error
    found = found if found else _integrity(store)
    if not found and not isinstance(typed, StoreCorruptError):
        raise typed from error
    return Report(corrupt=found or [str(typed)], restore=store.restore_hint)


def _integrity(store: Store) -> list[str]:
    try:
        return store.integrity_problems()
    except Exception as error:  # noqa: BLE001 - the check itself failed on the damage
        return [f"the database's integrity check failed: {' '.join(str(error).split())}"]


def _audit(store: Store, app_name: str | None, user_id: str | None, session_id: str | None,
           logs: Optional[list[_Log]], on_log: Callable[[int], None]) -> Report:
    if logs is None:
        logs = logs_to_check(store, app_name, user_id, session_id)
    recheck = Recheck(store)
    report = verify_store(store, logs, on_log, recheck)
    whole_store = app_name is None and user_id is None and session_id is None
    # Blobs are shared by content across every scope: they are checked with the whole store.
    report.drifted = recheck.finish(blobs=whole_store, memory_index=session_id is None)
    report.notes = recheck.notes
    scoped = ScopedFold(app_name) if whole_store else None
    if whole_store:  # read models fold the whole log: one pass feeds them and the scoped fold
        from runtime.read_models.projector import builtin_projections

        report.drifted += surviving(recheck, "the read models",
                                    lambda: read_model_drifts(store, builtin_projections(), scoped), [])
    if session_id is None:  # shared state belongs to the app and user, not to one session
        if scoped is None:  # an app's or a user's: folded from that scope's session logs only
            sessions = [log.log_id for log in logs if log.kind == SESSION]
            scoped = ScopedFold(app_name).read_logs(store, sessions)
        report.scoped = surviving(recheck, "app: and user: state",
                                  lambda: scoped_state_mismatches(store, app_name, user_id, scoped), [])
    return report
