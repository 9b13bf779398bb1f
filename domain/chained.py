"""The hash-chained aggregate: the one implementation of a log whose events are chained.

Every event of such a log, its genesis included, carries the digest of its payload and a link
that hashes the previous link, its version and that digest (``domain.chain``); applying an
event moves the log's ``chain_head`` to its link. A log class derives from ``ChainedAggregate``,
its genesis from ``ChainedAggregate.Created`` and its other events from its own ``Chained``
(each with a stable topic), and records events with ``_start`` and ``_append``.

Artifact and memory logs were written unchained before they moved onto this base: their
first events carry no digest and no link. They load as they always did, leave the chain head
where it was (genesis), and the first chained event links from there
(``domain.chain.verify`` accepts such a prefix where the caller allows it).

A snapshot of a chained log (``ChainedAggregate.Snapshot``) is checkable with one read: its
state holds the log's ``chain_head`` (the link of the event at its version), and it carries
the digest of its own state (and of the ``PARTS`` time travel reads on their own). A loader
compares both (``snapshot_problem``) and replays the log instead of serving a snapshot that
fails; refolding the log to compare a snapshot whose digest was recomputed is ``verify``'s job.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Optional, TypeVar
from uuid import UUID

from eventsourcing.domain import Aggregate

from domain import chain as hash_chain

T = TypeVar("T", bound="ChainedAggregate")

# Where a new event of one payload attribute keeps that attribute as its digest encoded it
# (``domain.chain.encode``), so that the store writes those bytes rather than encoding the
# payload a second time (``runtime.stores.application.VersionedMapper``). Not an attribute of
# the event's class: never stored, never compared, absent from events read back.
ENCODED_PAYLOAD = "_encoded_payload"


class ChainedAggregate(Aggregate):
    chain_head: str  # the link of the last event applied

    class Snapshot(Aggregate.Snapshot):
        """A snapshot carrying the digest of its state, and of the parts read on their own."""

        PARTS: ClassVar[tuple[str, ...]] = ()  # state attributes time travel reads without the rest

        @classmethod
        def take(cls, aggregate: Any) -> Any:
            snapshot = super().take(aggregate)
            object.__setattr__(snapshot, "digest", snapshot_digest(snapshot.state))
            if cls.PARTS:
                object.__setattr__(snapshot, "parts_digest", parts_digest(snapshot.state, cls.PARTS))
            return snapshot

    class Created(Aggregate.Created):
        digest: str
        chain: str

        def mutate(self, aggregate: Any) -> Any:
            log = super().mutate(aggregate)
            log.chain_head = getattr(self, "chain", hash_chain.GENESIS)  # none: written before chaining
            return log

    class Chained(Aggregate.Event):
        """Base of the log's events after its genesis."""

        digest: str
        chain: str

        def mutate(self, aggregate: Any) -> Any:
            log = super().mutate(aggregate)
            log.chain_head = getattr(self, "chain", log.chain_head)  # none: written before chaining
            return log

    @classmethod
    def _start(cls: type[T], created: type[Created], log_id: UUID, **payload: Any) -> T:
        """A new log whose genesis event carries ``payload``, chained from nothing."""
        digest = hash_chain.digest(created.TOPIC, payload)
        chain = hash_chain.link(hash_chain.GENESIS, cls.INITIAL_VERSION, digest)
        return cls._create(created, id=log_id, digest=digest, chain=chain, **payload)

    def _append(self, event_class: type[Chained], **payload: Any) -> None:
        """Records an event carrying ``payload``, linked to the log's last one.

        What the library's ``trigger_event`` and ``mutate`` do, without their generic per-call work
        (a copy of the arguments, a look-up in its topic registry, checking the id and version just
        given; for an event of one payload attribute, as every append's is, the frozen dataclass's
        constructor too): the event is built, applied and left pending for the next save."""
        version = self.version + 1
        encoded = hash_chain.encode(payload)
        digest = hash_chain.digest_of(event_class.TOPIC, encoded)
        chain = hash_chain.link(self.chain_head, version, digest)
        timestamp = event_class.create_timestamp()
        if len(payload) == 1:  # {"name":value}: the stored payload reuses these bytes (ENCODED_PAYLOAD)
            event = object.__new__(event_class)  # the constructor's attributes, in its order
            object.__setattr__(event, "__dict__", {
                "originator_id": self.id, "originator_version": version, "timestamp": timestamp,
                "digest": digest, "chain": chain, **payload, ENCODED_PAYLOAD: encoded,
            })
        else:  # rarer events: built by their constructor, which orders and checks their fields
            event = event_class(  # type: ignore[call-arg]
                originator_id=self.id, originator_version=version, timestamp=timestamp,
                digest=digest, chain=chain, **payload,
            )
        event.apply(self)  # then what the library's mutate sets
        self.version = version
        self.modified_on = timestamp
        self.chain_head = chain
        self.pending_events.append(event)  # (the library's own list, as trigger_event appends to it)


def snapshot_digest(state: Mapping[str, Any]) -> str:
    """The digest of a snapshot's state (library datetimes included: they encode the same after a
    round trip through the store)."""
    return hash_chain.digest("snapshot", state)


def parts_digest(state: Mapping[str, Any], parts: tuple[str, ...]) -> str:
    """The digest of some parts of a snapshot's state, canonical at every level (a database may
    hand nested JSON back with its keys reordered)."""
    return hash_chain.digest_v1("snapshot parts", {name: state.get(name) for name in parts})


def snapshot_problem(
    state: Mapping[str, Any], digest: Optional[str], event_link: Optional[str], *, parts: tuple[str, ...] = ()
) -> Optional[str]:
    """Why a snapshot must not be served, or None. ``state`` is its whole state and ``digest`` its
    ``digest`` or, with ``parts``, only those parts and its ``parts_digest`` (plus its
    ``chain_head``); ``event_link`` is the stored link of the log's event at its version."""
    if digest is None:
        return "it carries no digest (written before snapshots were checked, or stripped)"
    try:
        expected = parts_digest(state, parts) if parts else snapshot_digest(state)
    except (TypeError, ValueError):
        expected = None
    if expected != digest:
        return "its content does not match its digest (edited)"
    if event_link is None:
        return "the log has no event at its version"
    if state.get("chain_head") != event_link:
        return "its chain head is not the link of the log's event at its version"
    return None
