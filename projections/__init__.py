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

from domain.lazy_exports import lazy_exports

# Imported on first use: ``projections.pending`` alone must not import every fold (the command line).
__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "projections.analytics": ["ANALYTICS", "AnalyticsView", "fold_analytics", "format_analytics"],
    "projections.artifacts": ["ARTIFACTS", "SESSION_ARTIFACTS", "USER_ARTIFACTS", "fold_session_artifacts",
                              "fold_user_artifacts"],
    "projections.base": ["Fold", "Projection", "by_app", "by_session", "by_user", "fold_events", "fold_one",
                         "whole_log"],
    "projections.log_event": ["CREATED", "DELETED", "RECORDED", "REWOUND", "LogEvent", "session_events"],
    "projections.state": ["APP_STATE", "SCOPED_STATE", "SESSION_STATE", "USER_STATE", "fold_app_state",
                          "fold_session_state", "fold_user_state"],
    "projections.timeline": ["TIMELINE", "Timeline", "fold_timeline"],
})
