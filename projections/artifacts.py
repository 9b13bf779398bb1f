"""Artifact-version folds: the latest version of each artifact, per session and per user.

Events record the artifacts they saved in ``actions.artifact_delta`` (filename -> version).
As in ADK, a filename that starts with ``user:`` belongs to the user (shared by the user's
sessions); any other belongs to the session. A rewind puts back the session's artifact versions
of before the rewound invocation (``domain.session_log.fold_artifact_view`` is the one fold of that
view). A tracked read model keeps every version each filename went through, with the event
that recorded it.
"""

from __future__ import annotations

from domain.session_log import fold_artifact_view, session_artifacts
from projections.base import Fold, Projection, by_session, by_user
from projections.log_event import RECORDED, REWOUND, LogEvent

ArtifactVersions = dict[str, int]  # filename -> latest version


def fold_session_artifacts(view: ArtifactVersions, event: LogEvent) -> ArtifactVersions:
    """The session's own artifacts (``domain.session_log.session_artifacts`` says which)."""
    if event.kind == RECORDED:
        fold_artifact_view(view, event.artifact_delta)
    elif event.kind == REWOUND:
        # Back to the versions the session saw before the rewound invocation.
        fold_artifact_view(view, restored=event.meta.get("restored_artifacts") or {})
    return view


def fold_user_artifacts(view: ArtifactVersions, event: LogEvent) -> ArtifactVersions:
    """The user's artifacts: every file of a delta that is not the session's."""
    if event.kind == RECORDED and not event.copied:
        delta = event.artifact_delta
        if delta:
            own = session_artifacts(delta)
            view.update({name: version for name, version in delta.items() if name not in own})
    return view


SESSION_ARTIFACTS: Fold[ArtifactVersions] = Fold(
    "session_artifacts", fold_session_artifacts, by_session, dict, items=True
)
USER_ARTIFACTS: Fold[ArtifactVersions] = Fold("user_artifacts", fold_user_artifacts, by_user, dict, items=True)

ARTIFACTS = Projection("artifacts", folds=[SESSION_ARTIFACTS, USER_ARTIFACTS])
