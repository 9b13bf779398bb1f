"""Folds over the log: pure functions ``(view, LogEvent) -> view`` and the projections they make.

* ``projections.log_event``        — ``LogEvent``: one stored event of a session log, as folds see it;
* ``projections.base``       — ``Fold`` and ``Projection`` (a name and fold functions), ``fold_events``;
* ``projections.state``      — session state, ``app:`` state per app, ``user:`` state per user;
* ``projections.artifacts``  — artifact versions per session and per user;
* ``projections.analytics``  — analytics per app;
* ``projections.timeline``   — a session's timeline of invocations;
* ``runtime.agents.llm_context``— what the next model call of an agent sees.

No I/O here: ``runtime.read_models`` binds these folds to a store.
"""

from projections.analytics import ANALYTICS, AnalyticsView, fold_analytics, format_analytics
from projections.artifacts import ARTIFACTS, SESSION_ARTIFACTS, USER_ARTIFACTS, fold_session_artifacts, fold_user_artifacts
from projections.base import Fold, Projection, by_app, by_session, by_user, fold_events, fold_one, whole_log
from projections.log_event import CREATED, DELETED, RECORDED, REWOUND, LogEvent, session_events
from projections.state import (
    APP_STATE,
    SCOPED_STATE,
    SESSION_STATE,
    USER_STATE,
    fold_app_state,
    fold_session_state,
    fold_user_state,
)
from projections.timeline import TIMELINE, Timeline, fold_timeline

__all__ = [
    "ANALYTICS",
    "APP_STATE",
    "ARTIFACTS",
    "AnalyticsView",
    "CREATED",
    "DELETED",
    "Fold",
    "LogEvent",
    "Projection",
    "RECORDED",
    "REWOUND",
    "SCOPED_STATE",
    "SESSION_ARTIFACTS",
    "SESSION_STATE",
    "TIMELINE",
    "Timeline",
    "USER_ARTIFACTS",
    "USER_STATE",
    "by_app",
    "by_session",
    "by_user",
    "fold_analytics",
    "fold_app_state",
    "fold_events",
    "fold_one",
    "fold_session_artifacts",
    "fold_session_state",
    "fold_timeline",
    "fold_user_artifacts",
    "fold_user_state",
    "format_analytics",
    "session_events",
    "whole_log",
]
