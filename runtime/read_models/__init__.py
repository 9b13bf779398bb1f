"""Tracked read models bound to a store, their runner and worker, and time travel.

* ``Projector`` — a store's read models (scoped state, artifact versions, analytics, and any
  ``Projection`` you add): catch up, follow, rebuild, query.
* ``ProjectionFollower`` — one projection's runner (exactly-once batches, LISTEN/NOTIFY on
  PostgreSQL, polling on SQLite); ``python -m runtime.read_models.worker`` runs one in its own
  process.
* ``TimeTravel`` — ``state_at``, ``diff`` and ``history`` of a session.
"""

from projections.base import Fold, Projection, by_app, by_session, by_user, whole_log
from projections.log_event import LogEvent
from runtime.read_models.projector import Projector, builtin_projections
from runtime.read_models.follower import ProjectionFollower, runner_for
from runtime.read_models.source import LogSource
from runtime.stores.projection_storage import ProjectionStorage, storage_for
from runtime.read_models.time_travel import MISSING, At, Change, Diff, StateAt, TimeTravel, Write

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
