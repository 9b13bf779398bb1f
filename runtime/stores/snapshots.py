"""A session log's nearest snapshot, read without building the aggregate.

Rewinds and time travel replay a log from its latest snapshot at or before a version
(``Store.nearest_snapshot``). They need only two parts of it, the session's state and its
artifact view, while a snapshot holds the whole aggregate (its invocation index grows with the
session). A backend that can pick the parts out in the database does; the others decode the
payload here.
"""

from __future__ import annotations

import json
from typing import Any

from eventsourcing.persistence import StoredEvent

from domain.session_log import SessionLog
from runtime.stores.base import SnapshotParts

SNAPSHOT_CLASS_VERSION = getattr(SessionLog.Snapshot, "class_version", 1)


def decode_snapshot(store: Any, stored: StoredEvent) -> SnapshotParts:
    """A stored snapshot's version and parts (upcast by the store's mapper when old)."""
    # json.loads, not from_json: a snapshot's invocation index has thousands of distinct keys,
    # where the key cache of pydantic's parser costs more than it saves.
    payload = json.loads(stored.state)
    if payload.get("class_version", 1) != SNAPSHOT_CLASS_VERSION:
        snapshot = store.application.mapper.to_domain_event(stored)
        return stored.originator_version, dict(snapshot.state)
    return stored.originator_version, payload["state"]
