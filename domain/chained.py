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
"""

from __future__ import annotations

from typing import Any, TypeVar
from uuid import UUID

from eventsourcing.domain import Aggregate

from domain import chain as hash_chain

T = TypeVar("T", bound="ChainedAggregate")


class ChainedAggregate(Aggregate):
    chain_head: str  # the link of the last event applied

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
        """Records an event carrying ``payload``, linked to the log's last one."""
        digest = hash_chain.digest(event_class.TOPIC, payload)
        chain = hash_chain.link(self.chain_head, self.version + 1, digest)
        self.trigger_event(event_class, digest=digest, chain=chain, **payload)
