"""A checkpoint: the signed heads of a store's logs at one moment (a signed tree head, as in
Certificate Transparency and Trillian).

Each checkpoint names, for every log that changed since the checkpoint before it (all logs,
for the first), its head: the last version, that event's chain link, and the Merkle root
(``domain.merkle``) over the links of all its events. Over those heads it holds one more Merkle
root, and it is signed (``domain.seal_keys``) over its canonical JSON, which includes the
digest of the checkpoint before it: checkpoints form a chain of their own, and the newest one
with every one before it says what each log held when it was sealed.

A chain link hashes every link before it, so a head pins its whole log: a log rewritten with
recomputed links, truncated or deleted no longer shows the sealed link at the sealed version.
Without the key nobody can make a checkpoint that the key verifies.

Every value is a string, an integer or null, so the canonical JSON (sorted keys, no spaces,
ASCII) is the same wherever it is rebuilt: in the store, in an exported file, in another
language.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Optional, Sequence

from domain import merkle
from domain.errors import ChronicleError, InvalidArgumentError
from domain.seal_keys import SealKey

FORMAT = "chronicle-checkpoint/1"
NO_PREVIOUS = ""  # the ``previous`` of a store's first checkpoint


class SealRefusedError(ChronicleError):
    """A seal that would vouch for what the key cannot (the newest checkpoint is not the key's)."""


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode()


def hex_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def event_leaf(chain: Optional[str], stored_payload: bytes = b"") -> bytes:
    """A log event's leaf in its log's tree: its chain link (an event stored before its log was
    chained has none: then the hash of its stored payload)."""
    if chain:
        return merkle.leaf_hash(chain.encode())
    return merkle.leaf_hash(b"unchained:" + hashlib.sha256(stored_payload).hexdigest().encode())


@dataclass(frozen=True)
class LogHead:
    """One log as sealed: whose it is (to say where when it is gone), its last version, that
    event's link, and the Merkle root over all its events' leaves."""

    log_id: str
    kind: str  # session, artifacts, memory, purges (or the genesis topic of another kind of log)
    version: int
    chain: str
    root: str  # hex
    app_name: Optional[str] = None
    user_id: Optional[str] = None
    session_id: Optional[str] = None

    def to_json(self) -> dict[str, Any]:
        return {"log_id": self.log_id, "kind": self.kind, "version": self.version, "chain": self.chain,
                "root": self.root, "app_name": self.app_name, "user_id": self.user_id, "session_id": self.session_id}

    def leaf(self) -> bytes:
        return merkle.leaf_hash(canonical(self.to_json()))


def heads_root(heads: Sequence[LogHead]) -> str:
    """The Merkle root over heads, in log-id order."""
    return merkle.root([h.leaf() for h in sorted(heads, key=lambda h: h.log_id)]).hex()


@dataclass(frozen=True)
class Checkpoint:
    sequence: int  # 1, 2, 3, ... in the store's checkpoint log
    previous: str  # the digest of the checkpoint before (NO_PREVIOUS for the first)
    sealed_time: str  # ISO 8601, UTC
    position: int  # the store's log position it read up to
    heads: tuple[LogHead, ...]  # the logs that changed since the previous checkpoint, in log-id order
    root: str  # heads_root(heads)
    algorithm: str
    key_id: str
    signature: str = field(default="", compare=False)

    @classmethod
    def make(cls, *, sequence: int, previous: str, sealed_time: str, position: int, heads: Iterable[LogHead],
             key: SealKey) -> Checkpoint:
        ordered = tuple(sorted(heads, key=lambda h: h.log_id))
        unsigned = cls(sequence, previous, sealed_time, position, ordered, heads_root(ordered), key.algorithm,
                       key.key_id)
        return replace(unsigned, signature=key.sign(unsigned.signed_bytes()))

    def body(self) -> dict[str, Any]:
        """Everything the signature covers."""
        return {"format": FORMAT, "sequence": self.sequence, "previous": self.previous,
                "sealed_time": self.sealed_time, "position": self.position,
                "heads": [h.to_json() for h in self.heads], "root": self.root,
                "algorithm": self.algorithm, "key_id": self.key_id}

    def signed_bytes(self) -> bytes:
        return canonical(self.body())

    @property
    def digest(self) -> str:
        """What the next checkpoint's ``previous`` names: the hash of this one, signature included."""
        return hex_digest(canonical({**self.body(), "signature": self.signature}))

    def to_json(self) -> dict[str, Any]:
        return {**self.body(), "signature": self.signature}

    def problem(self, key: SealKey) -> Optional[str]:
        """Why ``key`` does not vouch for this checkpoint, or None when it does."""
        if self.algorithm != key.algorithm or self.key_id != key.key_id:
            return (f"signed by another key ({self.algorithm}, key id {self.key_id}; the key given is "
                    f"{key.algorithm}, key id {key.key_id})")
        if not key.verifies(self.signed_bytes(), self.signature):
            return "its signature does not hold: it was edited, or forged without the key"
        if heads_root(self.heads) != self.root:
            return "its Merkle root does not match its heads"
        return None

    def head(self, log_id: str) -> Optional[LogHead]:
        return next((h for h in self.heads if h.log_id == log_id), None)

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Checkpoint:
        """A checkpoint read back (from the store or an exported file); InvalidArgumentError when
        it is not one."""
        try:
            if value.get("format") != FORMAT:
                raise ValueError(f"format {value.get('format')!r} is not {FORMAT}")
            heads = tuple(LogHead(**{k: h[k] for k in ("log_id", "kind", "version", "chain", "root")},
                                  app_name=h.get("app_name"), user_id=h.get("user_id"),
                                  session_id=h.get("session_id"))
                          for h in value["heads"])
            checkpoint = cls(int(value["sequence"]), str(value["previous"]), str(value["sealed_time"]),
                             int(value["position"]), heads, str(value["root"]), str(value["algorithm"]),
                             str(value["key_id"]), str(value["signature"]))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise InvalidArgumentError(f"Not a Chronicle checkpoint: {e}") from None
        if canonical(checkpoint.to_json()) != canonical(dict(value)):
            raise InvalidArgumentError("Not a Chronicle checkpoint: it holds fields of other types or names")
        return checkpoint
