"""Checking a log's hash chain as it is stored (see domain/chain.py): the one verifier, used for
one session (``verify_log``) and by ``chronicle verify`` for every log of a store."""

from __future__ import annotations

from typing import Any, Sequence
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from domain.chain import BrokenLink, verify
from runtime.stores import Store


def decode_payload(store: Store, state: Any) -> dict[str, Any]:
    """A stored payload's attributes, read by the store's transcoder (an SQL edit may have
    left text where bytes were)."""
    return store.application.mapper.transcoder.decode(state.encode() if isinstance(state, str) else bytes(state))


def verify_rows(store: Store, rows: Sequence[StoredEvent]) -> BrokenLink | None:
    """The first broken link of a log's stored events (in version order), or None."""
    entries = []
    for row in rows:
        try:
            entries.append((row.originator_version, row.topic, decode_payload(store, row.state)))
        except Exception:  # noqa: BLE001 - a row that is no longer JSON was edited
            return BrokenLink(row.originator_version, "payload is not readable JSON (edited)")
    return verify(entries)


def verify_log(store: Store, log_id: UUID) -> BrokenLink | None:
    """The first broken link of one log, or None if it verifies."""
    return verify_rows(store, store.recorder.select_events(log_id))
