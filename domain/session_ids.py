"""A session's log id, derived from its key (app, user, session id).

A module of its own: finding a session's catalog row by its key (the command line, the server)
needs the id and none of the session log's aggregate classes (eventsourcing, pydantic-core)."""

from __future__ import annotations

import uuid
from functools import lru_cache

_NAMESPACE = uuid.UUID("6f1f0c52-3b1e-4f43-9c1a-6c7a1e0b8d2a")


@lru_cache(maxsize=65536)
def session_log_id(app_name: str, user_id: str, session_id: str) -> uuid.UUID:
    """The log's id is derived, so any process finds a session without an index."""
    return uuid.uuid5(_NAMESPACE, f"{app_name}\x1f{user_id}\x1f{session_id}")
