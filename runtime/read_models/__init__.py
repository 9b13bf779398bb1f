"""Tracked read models bound to a store, their runner and worker, and time travel.

* ``Projector`` — a store's read models (scoped state, artifact versions, analytics, and any
  ``Projection`` you add): catch up, follow, rebuild, query.
* ``ProjectionFollower`` — one projection's runner (exactly-once batches, LISTEN/NOTIFY on
  PostgreSQL, polling on SQLite); ``python -m runtime.read_models.worker`` runs one in its own
  process.
* ``TimeTravel`` — ``state_at``, ``diff`` and ``history`` of a session.
"""

# Names are imported when first asked for (PEP 562): a reader of one read model (the sessions
# index, for `chronicle pending`) does not pay for time travel's imports (the event model, genai).
from domain.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "projections.base": ["Fold", "Projection", "by_app", "by_session", "by_user", "whole_log"],
    "projections.log_event": ["LogEvent"],
    "runtime.read_models.projector": ["Projector", "builtin_projections"],
    "runtime.read_models.follower": ["ProjectionFollower", "runner_for"],
    "runtime.read_models.source": ["LogSource"],
    "runtime.stores.projection_storage": ["ProjectionStorage", "storage_for"],
    "runtime.read_models.time_travel": ["MISSING", "At", "Change", "Diff", "StateAt", "TimeTravel", "Write"],
})
