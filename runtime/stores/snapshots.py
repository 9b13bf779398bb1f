"""A session log's nearest snapshot, read without building the aggregate.

Rewinds and time travel replay a log from its latest snapshot at or before a version
(``Store.nearest_snapshot``). They need only two parts of it, the session's state and its
artifact view, while a snapshot holds the whole aggregate (its invocation index grows with the
session). A backend that can pick the parts out in the database does; the others decode the
payload here. Either way the parts are checked before they are used (``checked_parts``): their
digest, and the chain head against the log's event at the snapshot's version; a snapshot that
fails is not used, and the caller replays from the log's start.
"""

from __future__ import annotations

import json
from typing import Any

from eventsourcing.persistence import StoredEvent

from domain.chained import snapshot_problem
from domain.session_log import SessionLog
from runtime.stores.application import stored_link
from runtime.stores.base import SnapshotParts

SNAPSHOT_CLASS_VERSION = getattr(SessionLog.Snapshot, "class_version", 1)


def decode_snapshot(store: Any, stored: StoredEvent) -> SnapshotParts | None:
    """A stored snapshot's version and parts (upcast by the store's mapper when old), or None
    when its parts do not check out (``checked_parts``)."""
    # json.loads, not from_json: a snapshot's invocation index has thousands of distinct keys,
    # where the key cache of pydantic's parser costs more than it saves.
    payload = json.loads(stored.state)
    if payload.get("class_version", 1) != SNAPSHOT_CLASS_VERSION:
        snapshot = store.application.mapper.to_domain_event(stored)
        state, digest = dict(snapshot.state), getattr(snapshot, "parts_digest", None)
    else:
        state, digest = payload["state"], payload.get("parts_digest")
    return checked_parts(store, stored.originator_id, stored.originator_version, state, digest)


def checked_parts(store: Any, log_id: Any, version: int, state: dict[str, Any], digest: str | None) -> SnapshotParts | None:
    """(version, state) if the snapshot's parts match their digest and its chain head is the
    link of the log's event at its version (one read); else None, and the refusal is reported
    (a snapshot without a digest, written before they had one, is passed over quietly)."""
    if digest is None:
        return None
    parts = {name: state.get(name) for name in SessionLog.Snapshot.PARTS}
    why = snapshot_problem(parts, digest, stored_link(store.recorder, log_id, version), parts=SessionLog.Snapshot.PARTS)
    if why is not None:
        store.application.snapshots.fallbacks.refused(log_id, version, why)
        return None
    return version, state
