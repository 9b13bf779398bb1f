"""State folds: a session's own state, ``app:`` state per app, ``user:`` state per (app, user).

The rules (which scope a key belongs to, how a delta applies, ``temp:`` never stored) are
``domain.state``'s; these folds only route a log event's delta to the view it belongs to.
A session's genesis carries its initial state, which may hold ``app:`` and ``user:`` keys too.
"""

from __future__ import annotations

from typing import Any

from domain.state import apply_delta, with_scoped
from projections.base import Fold, Projection, by_app, by_session, by_user
from projections.log_event import CREATED, RECORDED, REWOUND, LogEvent

StateView = dict[str, Any]


def fold_session_state(state: StateView, event: LogEvent) -> StateView:
    """A session's own keys (no ``app:``/``user:``/``temp:`` prefix).

    A rewind puts back the state the session had before the rewound invocation (carried by the
    rewind event, computed by replay when it was recorded).
    """
    kind = event.kind
    if kind == RECORDED or kind == CREATED:
        apply_delta(state, event.scoped_delta.session)
    elif kind == REWOUND:
        state.clear()
        apply_delta(state, event.meta.get("restored_state"))
    return state


def fold_app_state(state: StateView, event: LogEvent) -> StateView:
    """``app:`` keys of one app, written by any of its sessions.

    Shared state is not rolled back by a rewind, nor written again by a fork's copied history
    (the session service's rule: neither writes shared rows).
    """
    if (event.kind == RECORDED and not event.copied) or event.kind == CREATED:
        apply_delta(state, event.scoped_delta.app)
    return state


def fold_user_state(state: StateView, event: LogEvent) -> StateView:
    """``user:`` keys of one user of one app, written by any of the user's sessions (as app: keys)."""
    if (event.kind == RECORDED and not event.copied) or event.kind == CREATED:
        apply_delta(state, event.scoped_delta.user)
    return state


SESSION_STATE: Fold[StateView] = Fold("session_state", fold_session_state, by_session, dict, items=True)
APP_STATE: Fold[StateView] = Fold("app_state", fold_app_state, by_app, dict, items=True)
USER_STATE: Fold[StateView] = Fold("user_state", fold_user_state, by_user, dict, items=True)

# The cross-session read model: what list_sessions and get_session merge into every session.
SCOPED_STATE = Projection("scoped_state", folds=[APP_STATE, USER_STATE])


def scoped_view(app_state: StateView | None, user_state: StateView | None) -> StateView:
    """What a session of that user sees of the shared scopes (``domain.state.with_scoped``)."""
    return with_scoped(None, app_state, user_state)
