"""Check a session log's hash chain as it is stored (see domain/chain.py)."""

from __future__ import annotations

from uuid import UUID

from pydantic_core import from_json

from domain.chain import BrokenLink, verify
from runtime.stores import Store


def verify_log(store: Store, log_id: UUID) -> BrokenLink | None:
    """The first broken link of one session's log, or None if it verifies."""
    entries = []
    for row in store.recorder.select_events(log_id):
        try:
            attributes = from_json(row.state)  # as stored: no transcoder types read into it
        except Exception:  # noqa: BLE001 - an unreadable row is a broken link
            return BrokenLink(row.originator_version, "payload is not readable JSON (edited)")
        entries.append((row.originator_version, row.topic, attributes))
    return verify(entries)
