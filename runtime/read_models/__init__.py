"""Tracked read models bound to a store, their runner and worker, and time travel.

* ``Projector`` — a store's read models (scoped state, artifact versions, analytics, and any
  ``Projection`` you add): catch up, follow, rebuild, query.
* ``ProjectionFollower`` — one projection's runner (exactly-once batches, LISTEN/NOTIFY on
  PostgreSQL, polling on SQLite); ``python -m runtime.read_models.worker`` runs one in its own
  process.
* ``TimeTravel`` — ``state_at``, ``diff`` and ``history`` of a session.
"""

from typing import Any

# Names are imported when first asked for (PEP 562): a reader of one read model (the sessions
# index, for `chronicle pending`) does not pay for time travel's imports (the event model, genai).
_HOMES = {
    "Fold": "projections.base", "Projection": "projections.base", "by_app": "projections.base",
    "by_session": "projections.base", "by_user": "projections.base", "whole_log": "projections.base",
    "LogEvent": "projections.log_event",
    "Projector": "runtime.read_models.projector", "builtin_projections": "runtime.read_models.projector",
    "ProjectionFollower": "runtime.read_models.follower", "runner_for": "runtime.read_models.follower",
    "LogSource": "runtime.read_models.source",
    "ProjectionStorage": "runtime.read_models.storage", "storage_for": "runtime.read_models.storage",
    **{name: "runtime.read_models.time_travel" for name in
       ("MISSING", "At", "Change", "Diff", "StateAt", "TimeTravel", "Write")},
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "MISSING",
    "At",
    "Change",
    "Diff",
    "Fold",
    "LogEvent",
    "LogSource",
    "Projection",
    "ProjectionFollower",
    "ProjectionStorage",
    "Projector",
    "StateAt",
    "TimeTravel",
    "Write",
    "builtin_projections",
    "by_app",
    "by_session",
    "by_user",
    "runner_for",
    "storage_for",
    "whole_log",
]
