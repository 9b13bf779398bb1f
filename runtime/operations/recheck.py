"""Recomputing what is derived from the log and comparing it with what is stored: the part of
``chronicle verify`` beyond the chains (``runtime.operations.audit`` walks the logs and hands each
one's decoded rows here).

Each comparison uses the one fold that built the row, never a second implementation:

* a session's snapshots and its catalog row: the ``SessionLog`` aggregate folded from its events
  (its own ``apply`` rules), compared at each snapshot's version and at the end; its event-id
  claims (what makes appends idempotent): one per recorded event, naming its version;
* artifact versions: every version a session's events name (``artifact_delta``) must be in that
  scope's artifact log, so the newest version removed from an artifact log shows wherever a
  session recorded it; every version's blob must be there, and every blob's bytes must hash to
  its name;
* the memory index: the sources it follows, refolded to the positions it holds
  (``projections.memory``), document by document;
* the built-in read models: each projection refolded to its stored position
  (``projections.base.fold_events``), view by view.

A row that differs is a ``Drift``: what kind, where, at which version or key, found and expected.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, TypeVar
from uuid import UUID

from pydantic_core import from_json, to_jsonable_python

from domain.artifact_log import ArtifactLog
from domain.artifact_names import ArtifactScope
from domain.chained import snapshot_problem
from domain.errors import StoreError
from domain.memory_log import MemoryLog
from domain.purge_log import PurgeLog
from domain.session_log import RETIRED, SessionLog
from domain.state import is_user_scoped
from projections.base import encoded, fold_events
from projections.memory import Folded, SourceView, fold_memory_log_event, fold_session_event, with_visibility
from runtime.stores.blobs import sha256_hex
from runtime.gc_pause import gc_paused
from runtime.log_reader import LogReader
from runtime.operations.read_ahead import read_ahead
from runtime.read_models.source import LogSource
from runtime.sessions.verify import ScopedFold
from runtime.stores import Store
from runtime.stores.application import domain_event

T = TypeVar("T")

# The kinds of derived row.
SNAPSHOT, CATALOG, CLAIM, ARTIFACT, BLOB, MEMORY_INDEX, READ_MODEL = (
    "snapshot", "catalog", "event-id claim", "artifact version", "blob", "memory index", "read model",
)


@dataclass(frozen=True)
class Drift:
    """A derived row that is not what the log says it must be."""

    kind: str
    where: str  # a person's words for the place: the session, log, scope or projection
    reason: str
    log_id: Optional[str] = None
    version: Optional[int] = None  # the log version the row stands for, where it has one
    key: Optional[str] = None  # the attribute, filename@version, sha256, document or view
    found: Any = None
    expected: Any = None


def _plain(value: Any) -> Any:
    return to_jsonable_python(value, fallback=str)


def _whose(app_name: str, user_id: str, session_id: Optional[str]) -> str:
    owner = f"session {session_id}" if session_id is not None else f"user {user_id}"
    return f"{owner} (app {app_name}, user {user_id})"


@dataclass
class Recheck:
    """Collects what the logs say as ``audit`` walks them, then compares the derived rows."""

    store: Store
    drifts: list[Drift] = field(default_factory=list)
    # artifact log id -> {(filename, version): sha256}
    _versions: dict[UUID, dict[tuple[str, int], str]] = field(default_factory=dict)
    _partly_purged: set[UUID] = field(default_factory=set)
    # (artifact log id, filename, version, where it was named, session log version)
    _named: list[tuple[UUID, str, int, str, int]] = field(default_factory=list)
    _purged_logs: set[str] = field(default_factory=set)  # hex ids of logs a purge removed
    _memory_users: list[tuple[str, str]] = field(default_factory=list)
    _members: list[tuple[str, str, str, str]] = field(default_factory=list)  # (app, user, log hex, session)
    _owners: list[tuple[str, str, str, str]] = field(default_factory=list)  # the same, of session artifact logs
    _session_logs: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)  # worth saying, not a drift

    def drift(self, *args: Any, **kwargs: Any) -> None:
        kwargs = {k: _plain(v) if k in ("found", "expected") else v for k, v in kwargs.items()}
        self.drifts.append(Drift(*args, **kwargs))

    # -- per log, as the audit reads it ------------------------------------------------------

    def session(self, log: Any, reader: Optional[LogReader] = None) -> "SessionRefold":
        """A refold of a session log, fed its rows window by window (``SessionRefold``), its
        snapshots and claims read through ``reader`` (one that may hold them already)."""
        return SessionRefold(self, log, reader or LogReader(self.store))

    def _snapshots(self, reader: LogReader, log_id: UUID, gt: int, upto: int) -> tuple[dict[int, Any], list[int]]:
        """The log's snapshots after version ``gt``: those up to ``upto`` by version, and the
        versions of those after it (one read: past the log's end, they are drifts)."""
        mapper = self.store.application.mapper
        stored = reader.snapshots(log_id, gt=gt)
        return ({s.originator_version: mapper.to_domain_event(s) for s in stored if s.originator_version <= upto},
                [s.originator_version for s in stored if s.originator_version > upto])

    def _compare_snapshot(self, reader: LogReader, log: Any, where: str, snapshot: Any, aggregate: Any) -> None:
        version = snapshot.originator_version
        expected = SessionLog.Snapshot.take(aggregate).state
        found = dict(snapshot.state)
        for key in sorted({*found, *expected} - set(RETIRED)):  # an older snapshot's retired keys: dropped on load
            if found.get(key) != expected.get(key):
                self.drift(SNAPSHOT, where, f"the snapshot at version {version} says {key} differently from the log",
                           str(log.log_id), version, key, found.get(key), expected.get(key))
        if {k: v for k, v in found.items() if k not in RETIRED} == expected:
            link = reader.link(log.log_id, version)
            why = snapshot_problem(found, getattr(snapshot, "digest", None), link)
            if why is not None and getattr(snapshot, "digest", None) is not None:
                self.drift(SNAPSHOT, where, f"the snapshot at version {version} is not served: {why}",
                           str(log.log_id), version, "digest")

    def _compare_claims(self, log: Any, where: str, expected: dict[str, int], found: dict[str, int]) -> None:
        if found == expected:
            return  # (the common case, without sorting every id)
        for event_id in sorted({*found, *expected}, key=str):
            got, want = found.get(event_id), expected.get(event_id)
            if got != want:
                reason = ("the claim is missing (a retried append of this event would be stored twice)"
                          if got is None else "no event of the log has this id" if want is None
                          else "the claim names another version than the event's")
                self.drift(CLAIM, where, reason, str(log.log_id), want or got, event_id, got, want)

    def _compare_catalog(self, log: Any, where: str, aggregate: Any) -> None:
        row = log.catalog
        expected = {
            "app_name": aggregate.app_name, "user_id": aggregate.user_id, "session_id": aggregate.session_id,
            "created_time": aggregate.created_time, "last_update_time": aggregate.last_update_time,
            "version": aggregate.version, "deleted": aggregate.deleted, "state": aggregate.state,
        }
        for key, want in expected.items():
            got = getattr(row, key)
            if key == "state":
                got = got or {}
            if got != want:
                self.drift(CATALOG, where, f"the catalog row's {key} is not what the log says",
                           str(log.log_id), row.version, key, got, want)

    def _note_named(self, log: Any, event: dict[str, Any], version: int) -> None:
        delta = (event.get("actions") or {}).get("artifact_delta") or {}
        for filename, file_version in delta.items():
            if not isinstance(file_version, int):
                continue
            scope = ArtifactScope(log.app_name, log.user_id, None if is_user_scoped(filename) else log.session_id)
            self._named.append((scope.log_id, filename, file_version, _whose(log.app_name, log.user_id,
                                                                               log.session_id), version))

    def artifacts(self, log: Any, payloads: Iterable[tuple[str, dict[str, Any]]]) -> None:
        if log.session_id is not None:
            from domain.session_log import session_log_id

            self._owners.append((log.app_name, log.user_id, session_log_id(log.app_name, log.user_id,
                                                                            log.session_id).hex, log.session_id))
        versions = self._versions.setdefault(log.log_id, {})
        for topic, payload in payloads:
            if topic == ArtifactLog.Saved.TOPIC and payload.get("purged"):
                self._partly_purged.add(log.log_id)  # blanked: which versions it held is gone
            elif topic == ArtifactLog.Saved.TOPIC:
                versions[(payload["filename"], int(payload["version"]))] = payload["sha256"]

    def memory(self, log: Any, payloads: Iterable[tuple[str, dict[str, Any]]]) -> None:
        self._memory_users.append((log.app_name, log.user_id))
        for topic, payload in payloads:
            if topic == MemoryLog.SessionAdded.TOPIC:
                self._members.append((log.app_name, log.user_id, payload["log_id"], payload["session_id"]))

    def purges(self, payloads: Iterable[tuple[str, dict[str, Any]]]) -> None:
        for topic, payload in payloads:
            if topic == PurgeLog.Purged.TOPIC:
                self._purged_logs.update(UUID(str(s["log_id"])).hex for s in payload.get("sessions") or ())

    # -- across logs, once every log was read ------------------------------------------------

    def finish(self, *, blobs: bool, memory_index: bool) -> list[Drift]:
        surviving(self, "the artifact versions sessions name", self._check_named_versions, None)
        surviving(self, "the sessions other logs name", self._check_members, None)
        if blobs:
            surviving(self, "the blobs", self._check_blobs, None)
        if memory_index:
            for app_name, user_id in self._memory_users:
                surviving(self, f"the memory of user {user_id} (app {app_name})",
                          lambda: self._check_memory_index(app_name, user_id), None)
        return self.drifts

    def _check_named_versions(self) -> None:
        for log_id, filename, version, where, at in self._named:
            versions = self._versions.get(log_id)
            if versions is None or (filename, version) in versions or log_id in self._partly_purged:
                continue  # no artifact log here: the files went to another artifact service
            newest = max((v for f, v in versions if f == filename), default=None)
            self.drift(ARTIFACT, where, f"its event at version {at} names version {version} of {filename!r}, "
                       f"which its artifact log ({log_id.hex}) does not hold (removed from it)", log_id.hex, at,
                       f"{filename}@{version}", f"newest stored: {newest}", version)

    def _check_members(self) -> None:
        """Sessions other logs name (a user's memory, a session's artifact log) must still have a
        log, unless a purge recorded removing it. An artifact log may name a session that never
        existed (stock ADK's artifact service saves into any session id, and so does the bridge):
        when nothing else in the store ever named that session, it is a note, not a drift."""
        reported = set()
        members = {log_hex for _, _, log_hex, _ in self._members}
        for named_by, references in (("the memory of its user", self._members), ("its artifact log", self._owners)):
            for app_name, user_id, log_hex, session_id in references:
                if log_hex in self._session_logs or log_hex in self._purged_logs or log_hex in reported:
                    continue
                if LogReader(self.store).stored_events(UUID(log_hex), limit=1):
                    continue  # outside the audit's filter
                reported.add(log_hex)
                where = _whose(app_name, user_id, session_id)
                traces = [] if log_hex in members else self._traces_of(UUID(log_hex))
                if log_hex not in members and not traces:
                    self.notes.append(f"the artifacts of {where} were saved for a session that never existed "
                                      "in this store (nothing else names it; saved through an artifact service "
                                      "without a session, as stock ADK allows)")
                    continue
                shown = "".join("; " + trace for trace in traces)
                self.drift(CATALOG, where, f"{named_by} names this session, but its log and catalog row are gone "
                           f"(deleted outside Chronicle; no purge recorded it{shown})",
                           log_hex, key="exists", found=False, expected=True)

    def _traces_of(self, log_id: UUID) -> list[str]:
        """What else in the store shows that a session log existed once."""
        from runtime.operations.seal import stored_checkpoints

        traces = []
        if LogReader(self.store).claims(log_id):
            traces.append("its event-id claims remain")
        if LogReader(self.store).snapshots(log_id, limit=1):
            traces.append("its snapshots remain")
        if any(str(head.log_id) in (str(log_id), log_id.hex) for checkpoint in stored_checkpoints(self.store)
               for head in checkpoint.heads):
            traces.append("a signed checkpoint names it")
        return traces

    def _check_blobs(self) -> None:
        blobs = self.store.blob_store()
        named: dict[str, tuple[UUID, str, int]] = {}
        for log_id, versions in self._versions.items():
            for (filename, version), sha256 in versions.items():
                named.setdefault(sha256, (log_id, filename, version))
        for sha256 in self.store.read_if_made(blobs.names, []):
            data = blobs.get(sha256)
            if data is None:
                continue  # removed since it was listed
            actual = sha256_hex(data)
            if actual != sha256:
                self.drift(BLOB, f"blob {sha256}", "its bytes do not hash to its name (edited)",
                           key=sha256, found=actual, expected=sha256)
            named.pop(sha256, None)
        for sha256, (log_id, filename, version) in sorted(named.items()):
            if not blobs.exists(sha256):
                self.drift(BLOB, f"version {version} of {filename!r} (artifact log {log_id.hex})",
                           "its bytes are missing from the blob store", log_id.hex, version, sha256,
                           None, sha256)

    def _check_memory_index(self, app_name: str, user_id: str) -> None:
        from domain.memory_log import memory_log_id

        index = self.store.memory_index()
        sources = self.store.read_if_made(lambda: index.sources(app_name, user_id), {})
        own = memory_log_id(app_name, user_id).hex
        expected: dict[tuple[str, int], Any] = {}
        for source, stored_view in sources.items():
            if "/" in source:
                continue  # a copy inside the memory log: folded with it
            view = SourceView(stored_view.session_id)
            folded = Folded()
            fold = fold_memory_log_event if source == own else fold_session_event
            for rows in _windows(LogReader(self.store), UUID(source), lte=stored_view.position):
                for row in rows:
                    fold(view, source, row.originator_version, row.topic, json.loads(row.state), folded)
            for doc in with_visibility(folded.docs, view):
                expected[(doc.source, doc.position)] = doc
        documents = self.store.read_if_made(lambda: index.documents(app_name, user_id), [])
        found = {(d.source, d.position): d for d in documents}
        where = f"the memory of user {user_id} (app {app_name})"
        for key in sorted({*found, *expected}):
            got, want = found.get(key), expected.get(key)
            if got == want:
                continue
            if got is not None and want is not None:  # only the fields that differ
                fields = [name for name in vars(want) if getattr(got, name) != getattr(want, name)]
                self.drift(MEMORY_INDEX, where, "an indexed document is not what the log says", key[0], key[1],
                           f"{key[0]}@{key[1]}", {f: getattr(got, f) for f in fields},
                           {f: getattr(want, f) for f in fields})
            else:
                self.drift(MEMORY_INDEX, where, "a document the log does not hold" if got else
                           "a document of the log is missing from the index", key[0], key[1],
                           f"{key[0]}@{key[1]}", got and vars(got), want and vars(want))


class SessionRefold:
    """A session log refolded as ``audit`` reads it, a window of rows at a time (so checking a
    long session holds one window, never all its events or snapshots): its snapshots against
    the fold at their versions, its event-id claims (window by window), then its catalog row
    against the whole fold (``finish``), and the artifact versions its events name. ``discard`` takes back what it found
    (a log with an unreadable payload is not refolded at all: its chain says where it was edited)."""

    def __init__(self, recheck: Recheck, log: Any, reader: LogReader):
        self.recheck, self.log, self.reader = recheck, log, reader
        self._drifts = len(recheck.drifts)
        self.aggregate: Any = None
        self.where = _whose(log.app_name, log.user_id, log.session_id)
        self.forked_at = 0  # a fork's ForkedFrom version: the events before it are its source's copies
        self.named: list[tuple[dict[str, Any], int]] = []  # events naming artifact versions, and where
        self.windowed, self.matched = False, 0  # claims checked window by window; how many found
        self.beyond: list[int] = []  # versions of snapshots after the last window read
        self.last = 0

    def add(self, rows: Sequence[Any], payloads: Sequence[dict[str, Any]], *, last: bool) -> None:
        """The next window of the log's rows and their payloads (``last``: the log ends with it)."""
        recheck, log = self.recheck, self.log
        mapper = recheck.store.application.mapper
        if self.last == 0 and rows and rows[0].topic == SessionLog.Created.TOPIC:
            genesis = payloads[0]  # whose session it is, as its genesis says (a catalog row may have been edited)
            self.where = _whose(genesis.get("app_name", log.app_name), genesis.get("user_id", log.user_id),
                                genesis.get("session_id", log.session_id))
        if not rows:
            return
        upto = rows[-1].originator_version
        snapshots, self.beyond = recheck._snapshots(self.reader, log.log_id, self.last, upto)
        self.forked_at = next((r.originator_version for r in rows if r.topic == SessionLog.ForkedFrom.TOPIC),
                              self.forked_at)
        aggregate, claims = self.aggregate, {}
        for row, payload in zip(rows, payloads):
            aggregate = domain_event(mapper, row, payload).mutate(aggregate)
            version = row.originator_version
            if version in snapshots:
                recheck._compare_snapshot(self.reader, log, self.where, snapshots.pop(version), aggregate)
            event = payload.get("event")
            if isinstance(event, dict):
                claims[event.get("id")] = version
                if (event.get("actions") or {}).get("artifact_delta"):
                    self.named.append((event, version))
        self._check_claims(claims, whole=last and self.last == 0)
        self.aggregate, self.last = aggregate, upto

    def _check_claims(self, expected: dict[str, int], *, whole: bool) -> None:
        """The window's claims: a log read in one window against all its claims (one read); a
        longer one window by window, against the claims of the window's ids (then ``finish``
        counts them all, so that a claim no event has is found too)."""
        reader = self.reader
        if whole:
            self.recheck._compare_claims(self.log, self.where, expected, reader.claims(self.log.log_id))
            return
        self.windowed = True
        found = reader.claims(self.log.log_id, [i for i in expected if isinstance(i, str)])
        self.matched += len(found)
        self.recheck._compare_claims(self.log, self.where, expected, found)

    def _claims_without_event(self) -> None:
        """A long log's claims whose ids none of its events has (read again, only when the count
        says there are some)."""
        reader = self.reader
        if reader.claim_count(self.log.log_id) == self.matched:
            return
        extra = reader.claims(self.log.log_id)
        for rows in _windows(reader, self.log.log_id):
            for row in rows:
                event = _event_of(row.state)
                if isinstance(event, dict) and isinstance(event.get("id"), str):
                    extra.pop(event["id"], None)
        self.recheck._compare_claims(self.log, self.where, {}, extra)

    def finish(self) -> None:
        recheck, log = self.recheck, self.log
        recheck._session_logs.add(log.log_id.hex)
        for event, version in self.named:
            if version > self.forked_at:
                recheck._note_named(log, event, version)
        if self.windowed:
            self._claims_without_event()
        for version in self.beyond:
            recheck.drift(SNAPSHOT, self.where, f"a snapshot at version {version}, past the log's end",
                          str(log.log_id), version)
        if self.aggregate is not None and log.catalog is not None:
            recheck._compare_catalog(log, self.where, self.aggregate)

    def discard(self) -> None:
        del self.recheck.drifts[self._drifts:]


def _windows(reader: LogReader, log_id: UUID, *, lte: Optional[int] = None,
             size: int = 1_000) -> Iterator[Sequence[Any]]:
    """A log's stored events (up to version ``lte``), ``size`` at a time: a long log is never
    held whole."""
    last = 0
    while True:
        rows = reader.stored_events(log_id, gt=last or None, lte=lte, limit=size)
        if rows:
            yield rows
        if len(rows) < size:
            return
        last = rows[-1].originator_version


def _event_of(state: Any) -> Any:
    try:
        return from_json(bytes(state) if not isinstance(state, str) else state.encode(),
                         cache_strings="keys").get("event")
    except (ValueError, AttributeError):
        return None  # an unreadable row: its chain says so


def surviving(recheck: Recheck, where: str, check: Callable[[], T], otherwise: T) -> T:
    """``check()``, or, when rows it reads were edited into something no fold takes (a topic
    changed, a field removed), a drift that says so: an audit reports every edit, it never
    stops at one. Store errors go through (a damaged database is reported as such)."""
    try:
        return check()
    except StoreError:
        raise
    except Exception as error:  # noqa: BLE001 - whatever an edited row makes a fold raise
        recheck.drift("log", where, f"its rows do not fold (edited outside Chronicle): {error!r}")
        return otherwise


_BATCH = 5_000  # stored events read, decoded and folded at a time by the read models' refold (one more read ahead)


def read_model_drifts(store: Store, projections: Iterable[Any], scoped: Optional[ScopedFold] = None) -> list[Drift]:
    """Each tracked read model refolded from the log up to its stored position, in one pass over
    the log, and compared view by view with its stored rows (``scoped`` is fed the same pass)."""
    storage = store.projection_storage()
    stored_names = set(store.read_if_made(storage.names, []))
    wanted = {p.name: (p, storage.position(p.name)) for p in projections if p.name in stored_names}
    wanted = {name: (p, position) for name, (p, position) in wanted.items() if position > 0}
    views: dict[str, dict[Any, Any]] = {name: {} for name in wanted}
    source, position = LogSource(store), 0
    end = None if scoped is not None else max((position for _, position in wanted.values()), default=0)
    with read_ahead(store) as load:  # the next batch read while this one is folded
        ahead = load(source.fetch, position, _BATCH, end) if end is None or position < end else None
        while ahead is not None:
            with gc_paused():  # a batch's events and folds: many objects, no cycles
                rows, forks = ahead.result()
                more = len(rows) == _BATCH and (end is None or rows[-1][0] < end)
                ahead = load(source.fetch, rows[-1][0], _BATCH, end) if more else None
                try:
                    events, position = source.decode_rows(rows, forks, after=position)
                    del rows  # (folded as events: the raw batch is not held through the folds)
                except ValueError:
                    if scoped is not None:
                        scoped.unreadable = True
                    return []  # an unreadable payload: the chain check says where
                if scoped is not None:
                    scoped.add(events)
                for name, (projection, upto) in wanted.items():
                    fold_events(projection, events if not events or events[-1].position <= upto else
                                [e for e in events if e.position <= upto], views[name])
    drifts = []
    for name, (projection, upto) in wanted.items():
        expected = _normalised(encoded(projection, views[name]))
        found = _normalised({**storage.read_views(name), **storage.read_items(name)})
        for view_id in sorted({*found, *expected}):
            if found.get(view_id) != expected.get(view_id):
                fold, key = view_id
                drifts.append(Drift(READ_MODEL, f"read model {name}, fold {fold}, view {key}",
                                    f"the stored view is not the log's fold up to position {upto}",
                                    version=upto, key=f"{fold}/{key}", found=found.get(view_id),
                                    expected=expected.get(view_id)))
    return drifts


def _normalised(views: dict[Any, Any]) -> dict[Any, Any]:
    """Views as JSON values, empty ones left out (a view whose entries were all removed)."""
    out = {}
    for view_id, view in views.items():
        value = json.loads(json.dumps(dict(view) if isinstance(view, dict) else view, allow_nan=False))
        if value not in ({}, None, []):
            out[view_id] = value
    return out
