"""A session's own state and artifact view at a version of its log: the one computation, for
a rewind (what the session goes back to) and for time travel (what it was then)."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, NamedTuple

from projections.artifacts import ArtifactVersions, fold_session_artifacts
from projections.log_event import LogEvent
from projections.state import StateView, fold_session_state

# A log's nearest snapshot: its version, and its "state" and "artifacts" parts.
Snapshot = tuple[int, Mapping[str, Any]]


class SessionAt(NamedTuple):
    state: StateView  # the session's own keys
    artifacts: ArtifactVersions  # the session's files: filename -> version in view


def session_at(snapshot: Snapshot | None, events: Iterable[LogEvent], version: int) -> SessionAt:
    """The state and artifact view once the log's event at ``version`` was applied: the nearest
    snapshot at or before it (None: the log's start), then the events after the snapshot up to
    ``version`` (others are skipped), folded with the session folds. The cost is a snapshot
    interval of events at most, never the whole history."""
    start, parts = snapshot if snapshot is not None else (0, {})
    state: StateView = dict(parts.get("state") or {})
    artifacts: ArtifactVersions = dict(parts.get("artifacts") or {})
    for event in events:
        if start < event.version <= version:
            fold_session_state(state, event)
            fold_session_artifacts(artifacts, event)
    return SessionAt(state, artifacts)
