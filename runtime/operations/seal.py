"""Sealing a store and checking it against its seals: what makes truncation and rewriting evident.

* ``seal`` writes a signed checkpoint (``domain.checkpoint``) of the head of every log that
  changed since the last one (every log, the first time): session, artifact, memory and purge
  logs. It reads only what was appended since the last checkpoint's log position, so sealing
  often costs little, and an unchanged store gets no new checkpoint.
* ``check_seals`` (``chronicle verify --key``) checks each checkpoint's signature, their own
  chain, and then that every sealed log still exists, is at least as long as sealed, still
  holds the sealed link at the sealed version, and (for its newest seal) the sealed Merkle root.
  An exported copy of the checkpoints may be given too: checkpoints deleted from the store then
  show, and are still used.
* ``prove`` gives an inclusion proof (audit path) that an event is in a sealed log.

The key never enters the store; ``load_key`` reads it from a file or an environment variable.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from domain import merkle
from domain.artifact_log import ArtifactLog
from domain.checkpoint import NO_PREVIOUS, Checkpoint, LogHead, SealRefusedError, event_leaf
from domain.checkpoint_log import CHECKPOINT_LOG_ID, CheckpointLog, next_events
from domain.errors import InvalidArgumentError
from domain.memory_log import MemoryLog
from domain.purge_log import PURGE_LOG_ID, PurgeLog
from domain.seal_keys import SealKey, SealKeyError, new_key, parse_key
from domain.session_log import SessionLog
from runtime.log_reader import LogReader
from runtime.operations.audit import ARTIFACTS, MEMORY, PURGES, SESSION, Broken
from runtime.sessions.verify import decode_payload, verify_rows
from runtime.stores import Store
from runtime.stores.base import as_uuid

_KIND_OF_GENESIS = {SessionLog.Created.TOPIC: SESSION, ArtifactLog.Created.TOPIC: ARTIFACTS,
                    MemoryLog.Created.TOPIC: MEMORY, PurgeLog.Created.TOPIC: PURGES}
_PAGE = 5000
MAX_HEADS = 1000  # heads in one checkpoint: about 300 kB of JSON
_ATTEMPTS = 5


# -- keys ------------------------------------------------------------------------------


def load_key(path: Optional[str] = None, env: Optional[str] = None) -> SealKey:
    """The seal key from a file or an environment variable (exactly one of them)."""
    if (path is None) == (env is None):
        raise SealKeyError("Give the seal key with either --key FILE or --key-env VAR.")
    if env is not None:
        text = os.environ.get(env)
        if not text:
            raise SealKeyError(f"The environment variable {env} holds no seal key.")
        return parse_key(text, source=f"${env}")
    try:
        with open(str(path), encoding="utf-8") as f:
            text = f.read(4096)
    except OSError as e:
        raise SealKeyError(f"Cannot read the seal key {path}: {e.strerror or e}.") from None
    return parse_key(text, source=f"the key file {path}")


def write_new_key(path: str, algorithm: str) -> tuple[SealKey, Optional[str]]:
    """Makes a key, writes it to ``path`` readable by its owner only (0600) and, for Ed25519, its
    public half to ``path``.pub; never overwrites a file. Returns the key and the .pub path."""
    key = new_key(algorithm)
    public_path = f"{path}.pub" if key.public is not None else None
    for target in (path, public_path):
        if target is not None and os.path.exists(target):
            raise SealKeyError(f"{target} already exists; a key file is never overwritten. Choose another name.")
    _write_exclusive(path, key.text(), 0o600)
    if public_path is not None:
        _write_exclusive(public_path, key.public_text(), 0o644)
    return key, public_path


def _write_exclusive(path: str, text: str, mode: int) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except OSError as e:
        raise SealKeyError(f"Cannot write the key file {path}: {e.strerror or e}.") from None
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)  # whatever the umask said


# -- reading the store -----------------------------------------------------------------


@dataclass
class _Log:
    """A log's stored events as sealing and checking need them."""

    rows: Sequence[tuple[int, str, bytes]]  # (version, topic, payload)
    payloads: list[dict[str, Any]]
    _chains: Optional[dict[int, str]] = None

    @classmethod
    def read(cls, store: Store, log_id: UUID) -> _Log:
        rows = LogReader(store).rows(log_id)
        payloads = []
        for _, _, state in rows:
            try:
                payloads.append(decode_payload(store, state))
            except Exception:  # noqa: BLE001 - an unreadable row: its leaf is its bytes' hash
                payloads.append({})
        return cls(rows, payloads)

    @property
    def last_version(self) -> int:
        return self.rows[-1][0] if self.rows else 0

    def leaves(self, upto: Optional[int] = None) -> list[bytes]:
        return [event_leaf(p.get("chain"), bytes(r[2])) for r, p in zip(self.rows, self.payloads)
                if upto is None or r[0] <= upto]

    def chain_at(self, version: int) -> Optional[str]:
        """The link of the event at ``version`` ('' for one stored unchained; None: no such event)."""
        if self._chains is None:
            self._chains = {v: str(p.get("chain") or "") for (v, _, _), p in zip(self.rows, self.payloads)}
        return self._chains.get(version)

    def head_or_none(self, log_id: UUID) -> Optional[LogHead]:
        """The log's head (None: the log has no events, e.g. purged since it was touched)."""
        if not self.rows:
            return None
        genesis_topic, genesis = self.rows[0][1], self.payloads[0]
        return LogHead(
            log_id=str(log_id), kind=_KIND_OF_GENESIS.get(genesis_topic, genesis_topic), version=self.last_version,
            chain=str(self.payloads[-1].get("chain") or ""), root=merkle.root(self.leaves()).hex(),
            app_name=_text(genesis.get("app_name")), user_id=_text(genesis.get("user_id")),
            session_id=_text(genesis.get("session_id")),
        )


def _text(value: Any) -> Optional[str]:
    return None if value is None else str(value)


def _stored_checkpoint_rows(store: Store) -> Sequence[Any]:
    return LogReader(store).stored_events(CHECKPOINT_LOG_ID)


def _as_checkpoint(store: Store, state: bytes) -> Checkpoint:
    return Checkpoint.from_json(decode_payload(store, state)["checkpoint"])


def sealed_position(store: Store) -> Optional[int]:
    """The log position the newest checkpoint covers (None: never sealed), where an incremental
    ``chronicle verify --since sealed`` starts. Not checked against a key here: ``verify --key`` does."""
    latest = LogReader(store).stored_events(CHECKPOINT_LOG_ID, desc=True, limit=1)
    if not latest or latest[0].topic != CheckpointLog.Sealed.TOPIC:
        return None
    try:
        return _as_checkpoint(store, latest[0].state).position
    except (InvalidArgumentError, ValueError, KeyError):
        return None


def stored_checkpoints(store: Store) -> list[Checkpoint]:
    """The store's checkpoints, oldest first (rows that are not checkpoints left out: ``check_seals`` says)."""
    found = []
    for row in _stored_checkpoint_rows(store):
        if row.topic == CheckpointLog.Sealed.TOPIC:
            try:
                found.append(_as_checkpoint(store, row.state))
            except Exception:  # noqa: BLE001 - reported by check_seals
                continue
    return found


# -- sealing ---------------------------------------------------------------------------


def seal(store: Store, key: SealKey, *, now: Optional[float] = None) -> list[Checkpoint]:
    """Writes the next checkpoints: the heads of the logs changed since the last one, at most
    ``MAX_HEADS`` a checkpoint (only the last one moves the sealed position on, so a sealer
    stopped half-way seals them all again next time); none when nothing was appended (the
    last still covers every log). Refuses to continue a checkpoint log whose newest checkpoint
    this key does not vouch for (forged, or sealed with another key)."""
    if not key.can_sign:
        key.sign(b"")  # raises the error that says why
    written: list[Checkpoint] = []
    for _ in range(_ATTEMPTS):
        tail, last = _newest(store, key)
        start = last.position if last else 0
        touched, position = _touched_since(store, start)
        if last is not None and not touched:
            return written
        heads = sorted((h for h in (_Log.read(store, log_id).head_or_none(log_id) for log_id in touched) if h),
                       key=lambda h: h.log_id)
        chunks = [heads[i:i + MAX_HEADS] for i in range(0, len(heads), MAX_HEADS)] or [[]]
        moment = time.time() if now is None else now
        sealed_time = _dt.datetime.fromtimestamp(moment, _dt.timezone.utc).isoformat(timespec="microseconds")
        try:
            for i, chunk in enumerate(chunks):
                checkpoint = Checkpoint.make(
                    sequence=(last.sequence + 1) if last else 1, previous=last.digest if last else NO_PREVIOUS,
                    sealed_time=sealed_time, position=position if i == len(chunks) - 1 else start, heads=chunk,
                    key=key,
                )
                events = next_events(tail, checkpoint.to_json(), moment)
                store.append_events(events)
                written.append(checkpoint)
                last, tail = checkpoint, (events[-1].originator_version, events[-1].chain)
            return written
        except IntegrityError:
            continue  # another sealer wrote this sequence number first: seal after it
    raise SealRefusedError(f"Could not seal: other sealers kept writing checkpoints ({_ATTEMPTS} attempts).")


def _newest(store: Store, key: SealKey) -> tuple[Optional[tuple[int, str]], Optional[Checkpoint]]:
    """The checkpoint log's last (version, link) and its newest checkpoint, which ``key`` must vouch for."""
    latest = LogReader(store).stored_events(CHECKPOINT_LOG_ID, desc=True, limit=1)
    if not latest:
        return None, None
    row = latest[0]
    try:
        tail = (row.originator_version, str(decode_payload(store, row.state).get("chain") or ""))
    except Exception:  # noqa: BLE001 - an edited row
        raise SealRefusedError("Not sealing: the checkpoint log's newest row is not readable (edited). Run "
                               "`chronicle verify --key` to see what changed.") from None
    if row.topic != CheckpointLog.Sealed.TOPIC:
        return tail, None
    try:
        last: Optional[Checkpoint] = _as_checkpoint(store, row.state)
    except InvalidArgumentError:
        last = None
    problem = "it is not readable" if last is None else last.problem(key)
    if problem is not None:
        raise SealRefusedError(
            f"Not sealing: the store's newest checkpoint is not vouched for by this key ({problem}). "
            "Run `chronicle verify --key` to see what changed."
        )
    return tail, last


def _touched_since(store: Store, after: int) -> tuple[list[UUID], int]:
    """The logs with events after log position ``after`` (the checkpoint log aside), and the last position."""
    touched: dict[UUID, None] = {}
    position = after
    while True:
        rows = store.log_rows(position, _PAGE, None)
        for row_position, raw_id, _, _, _ in rows:
            log_id = as_uuid(raw_id)
            if log_id != CHECKPOINT_LOG_ID:
                touched[log_id] = None
            position = max(position, int(row_position))
        if len(rows) < _PAGE:
            return list(touched), position


# -- exporting -------------------------------------------------------------------------


def export_lines(store: Store) -> Iterable[str]:
    """The store's checkpoints as JSON lines, oldest first."""
    for checkpoint in stored_checkpoints(store):
        yield json.dumps(checkpoint.to_json(), sort_keys=True, separators=(",", ":")) + "\n"


def read_exported(path: str) -> list[Checkpoint]:
    """Checkpoints from a file ``export_lines`` wrote."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError as e:
        raise InvalidArgumentError(f"Cannot read the checkpoints file {path}: {e.strerror or e}.") from None
    found = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            found.append(Checkpoint.from_json(json.loads(line)))
        except (ValueError, InvalidArgumentError) as e:
            raise InvalidArgumentError(f"{path}, line {number}: {e}") from None
    return found


# -- checking --------------------------------------------------------------------------


@dataclass(frozen=True)
class SealFinding:
    where: str
    reason: str
    log_id: Optional[str] = None
    version: Optional[int] = None
    checkpoint: Optional[int] = None  # the sequence number of the checkpoint concerned


@dataclass
class SealReport:
    checkpoints: int = 0  # checkpoints the key vouches for
    logs: int = 0  # sealed logs checked
    latest: Optional[str] = None  # when the newest vouched-for checkpoint was sealed
    findings: list[SealFinding] = field(default_factory=list)
    purged: list[str] = field(default_factory=list)  # sealed logs gone by a recorded purge

    @property
    def ok(self) -> bool:
        return not self.findings


_CHECKPOINT_LOG = f"the checkpoint log (log {CHECKPOINT_LOG_ID})"


def check_seals(store: Store, key: SealKey, exported: Sequence[Checkpoint] = ()) -> SealReport:
    report = SealReport()
    vouched = _vouched_checkpoints(store, key, exported, report)
    report.checkpoints = len(vouched)
    report.latest = vouched[-1].sealed_time if vouched else None
    sealed: dict[str, list[tuple[LogHead, int]]] = {}
    for checkpoint in vouched:
        for head in checkpoint.heads:
            sealed.setdefault(head.log_id, []).append((head, checkpoint.sequence))
    purges = _Purges.read(store)
    for log_id, heads in sealed.items():
        report.logs += 1
        finding = _check_log(store, log_id, heads, purges, report)
        if finding is not None:
            report.findings.append(finding)
    return report


def _vouched_checkpoints(store: Store, key: SealKey, exported: Sequence[Checkpoint],
                         report: SealReport) -> list[Checkpoint]:
    """The checkpoints (the store's and an exported copy's) that ``key`` vouches for, in order;
    what is wrong with the others, and with the checkpoint log, goes into ``report``."""
    rows = _stored_checkpoint_rows(store)
    broken = verify_rows(store, rows) if rows else None
    if broken is not None:
        report.findings.append(SealFinding(_CHECKPOINT_LOG, broken.reason, str(CHECKPOINT_LOG_ID), broken.version))
    stored: dict[int, Checkpoint] = {}
    for row in rows:
        if row.topic != CheckpointLog.Sealed.TOPIC:
            continue
        try:
            checkpoint = _as_checkpoint(store, row.state)
        except Exception:  # noqa: BLE001 - an edited row
            report.findings.append(SealFinding(_CHECKPOINT_LOG, "this row is not a readable checkpoint (edited)",
                                               str(CHECKPOINT_LOG_ID), row.originator_version))
            continue
        stored[checkpoint.sequence] = checkpoint
    every = dict(stored)
    for copy in exported:
        mine = stored.get(copy.sequence)
        if mine is None:
            every[copy.sequence] = copy
            report.findings.append(SealFinding(
                _CHECKPOINT_LOG, f"checkpoint #{copy.sequence} of the exported copy is missing from the store "
                "(deleted)", checkpoint=copy.sequence))
        elif mine.digest != copy.digest:
            report.findings.append(SealFinding(
                _CHECKPOINT_LOG, f"checkpoint #{copy.sequence} in the store differs from the exported copy",
                checkpoint=copy.sequence))
            if mine.problem(key) is not None:
                every[copy.sequence] = copy
    if not every:
        report.findings.append(SealFinding(
            _CHECKPOINT_LOG, "the store holds no checkpoint: it was never sealed, or its checkpoints were deleted "
            "(give an exported copy with --checkpoints FILE)"))
        return []
    vouched, previous = [], None
    for sequence in sorted(every):
        checkpoint = every[sequence]
        expected = 1 if previous is None else previous.sequence + 1
        if sequence != expected:
            report.findings.append(SealFinding(
                _CHECKPOINT_LOG, f"checkpoints #{expected}–#{sequence - 1} are missing (deleted)", checkpoint=expected))
        elif checkpoint.previous != (previous.digest if previous is not None else NO_PREVIOUS):
            report.findings.append(SealFinding(
                _CHECKPOINT_LOG, f"checkpoint #{sequence} does not follow the one before it", checkpoint=sequence))
        previous = checkpoint
        problem = checkpoint.problem(key)
        if problem is not None:
            report.findings.append(SealFinding(_CHECKPOINT_LOG, f"checkpoint #{sequence} is refused: {problem}",
                                               checkpoint=sequence))
            continue
        vouched.append(checkpoint)
    return vouched


@dataclass
class _Purges:
    """What the purge audit log says was purged on purpose."""

    log_ids: set[str] = field(default_factory=set)
    sessions: set[tuple[str, str, str]] = field(default_factory=set)
    users: set[tuple[str, str]] = field(default_factory=set)

    @classmethod
    def read(cls, store: Store) -> _Purges:
        purges = cls()
        for row in LogReader(store).stored_events(PURGE_LOG_ID):
            if row.topic != PurgeLog.Purged.TOPIC:
                continue
            try:
                payload = decode_payload(store, row.state)
                for s in payload["sessions"]:
                    purges.log_ids.add(str(s["log_id"]))
                    purges.sessions.add((s["app_name"], s["user_id"], s["session_id"]))
                scope = payload["scope"]
                if scope.get("user_id") is not None and scope.get("session_id") is None:
                    purges.users.add((scope["app_name"], scope["user_id"]))
            except Exception:  # noqa: BLE001 - an edited purge record vouches for nothing
                continue
        return purges

    def covers(self, head: LogHead) -> bool:
        if head.log_id in self.log_ids:
            return True
        owner = (head.app_name or "", head.user_id or "")
        if head.kind == ARTIFACTS and head.session_id is not None:
            return (*owner, head.session_id) in self.sessions
        return head.kind in (ARTIFACTS, MEMORY) and owner in self.users


def _where(head: LogHead) -> str:
    """Where a sealed log is, in the words plain ``verify`` uses."""
    return Broken(head.log_id, head.app_name, head.user_id, head.session_id, head.version, "", kind=head.kind).where


def _check_log(store: Store, log_id: str, heads: list[tuple[LogHead, int]], purges: _Purges,
               report: SealReport) -> Optional[SealFinding]:
    """The first thing wrong with one sealed log (None: it holds every seal)."""
    newest, newest_at = max(heads, key=lambda h: (h[0].version, h[1]))
    log = _Log.read(store, UUID(log_id))

    def finding(reason: str, version: Optional[int], checkpoint: int) -> SealFinding:
        return SealFinding(_where(newest), reason, log_id, version, checkpoint)

    if not log.rows:
        if purges.covers(newest):
            report.purged.append(f"{_where(newest)}: sealed at version {newest.version}, then purged")
            return None
        return finding(f"the log is gone: checkpoint #{newest_at} sealed it at version {newest.version} "
                       "(deleted after the seal)", newest.version, newest_at)
    if log.last_version < newest.version:
        return finding(f"the log ends at version {log.last_version} but checkpoint #{newest_at} sealed it at "
                       f"version {newest.version} (truncated after the seal)", log.last_version + 1, newest_at)
    for head, sequence in sorted(heads, key=lambda h: h[1]):
        stored = log.chain_at(head.version)
        if stored != head.chain:
            return finding(f"the event at version {head.version} is not the one checkpoint #{sequence} sealed "
                           "(its chain link differs: the log was rewritten)", head.version, sequence)
    if merkle.root(log.leaves(newest.version)).hex() != newest.root:
        return finding(f"the events up to version {newest.version} are not the ones checkpoint #{newest_at} "
                       "sealed (their Merkle root differs)", newest.version, newest_at)
    return None


# -- proving ---------------------------------------------------------------------------


@dataclass
class InclusionProof:
    """That one event is in a sealed log: its leaf, the audit path to the log's sealed root, and
    the log head's path to the checkpoint's root."""

    app_name: str
    user_id: str
    session_id: str
    event_id: str
    log_id: str
    version: int  # the event's version: leaf index + 1
    leaf: str  # the event's chain link (the leaf's data)
    tree_size: int  # the sealed version
    log_root: str
    path: list[str]
    checkpoint: int
    sealed_time: str
    checkpoint_root: str
    head_index: int
    heads: int
    head_path: list[str]
    signature: str
    key_id: str
    signature_checked: bool  # a key was given and vouches for the checkpoint
    holds: bool
    problem: Optional[str] = None


def prove(store: Store, app_name: str, user_id: str, session_id: str, event_id: str,
          key: Optional[SealKey] = None) -> InclusionProof:
    from domain.session_log import session_log_id

    log_id = session_log_id(app_name, user_id, session_id)
    version = LogReader(store).claim(log_id, event_id)
    if version is None:
        raise InvalidArgumentError(f"No event {event_id!r} in session {session_id!r} (app {app_name}, user "
                                   f"{user_id}).")
    candidates = [c for c in stored_checkpoints(store) if key is None or c.problem(key) is None]
    sealing = [(c, h) for c in candidates for h in [c.head(str(log_id))] if h is not None and h.version >= version]
    if not sealing:
        raise InvalidArgumentError(
            f"Event {event_id!r} (version {version}) is not sealed yet"
            + (" by a checkpoint this key vouches for" if key is not None else "")
            + ": run `chronicle seal --key FILE`, then prove it."
        )
    checkpoint, head = sealing[-1]
    log = _Log.read(store, log_id)
    leaves = log.leaves(head.version)
    problems = []
    if len(leaves) != head.version:
        problems.append(f"the log no longer holds the {head.version} events sealed")
        leaves = leaves + [merkle.EMPTY_ROOT] * (head.version - len(leaves))
    path = merkle.inclusion_proof(version - 1, leaves)
    if not merkle.verify_inclusion(version - 1, head.version, leaves[version - 1], path, bytes.fromhex(head.root)):
        problems.append("the event's path does not lead to the sealed root (the log was changed after the seal)")
    ordered = sorted(checkpoint.heads, key=lambda h: h.log_id)
    index = ordered.index(head)
    head_leaves = [h.leaf() for h in ordered]
    head_path = merkle.inclusion_proof(index, head_leaves)
    if not merkle.verify_inclusion(index, len(ordered), head.leaf(), head_path, bytes.fromhex(checkpoint.root)):
        problems.append("the log's head is not in the checkpoint's tree")
    return InclusionProof(
        app_name, user_id, session_id, event_id, str(log_id), version, log.chain_at(version) or "", head.version,
        head.root, [p.hex() for p in path], checkpoint.sequence, checkpoint.sealed_time, checkpoint.root, index,
        len(ordered), [p.hex() for p in head_path], checkpoint.signature, checkpoint.key_id, key is not None,
        not problems, "; ".join(problems) or None,
    )
