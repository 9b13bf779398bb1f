"""Artifact-version folds: the latest version of each artifact, per session and per user.

Events record the artifacts they saved in ``actions.artifact_delta`` (filename -> version).
As in ADK, a filename that starts with ``user:`` belongs to the user (shared by the user's
sessions); any other belongs to the session. A tracked read model keeps every version each
filename went through, with the event that recorded it.
"""

from __future__ import annotations

from projections.base import Fold, Projection, by_session, by_user
from projections.log import RECORDED, LogEvent

USER_PREFIX = "user:"

ArtifactVersions = dict[str, int]  # filename -> latest version


def fold_session_artifacts(view: ArtifactVersions, event: LogEvent) -> ArtifactVersions:
    if event.kind == RECORDED:
        for filename, version in event.artifact_delta.items():
            if not filename.startswith(USER_PREFIX):
                view[filename] = version
    return view


def fold_user_artifacts(view: ArtifactVersions, event: LogEvent) -> ArtifactVersions:
    if event.kind == RECORDED:
        for filename, version in event.artifact_delta.items():
            if filename.startswith(USER_PREFIX):
                view[filename] = version
    return view


SESSION_ARTIFACTS: Fold[ArtifactVersions] = Fold(
    "session_artifacts", fold_session_artifacts, by_session, dict, items=True
)
USER_ARTIFACTS: Fold[ArtifactVersions] = Fold("user_artifacts", fold_user_artifacts, by_user, dict, items=True)

ARTIFACTS = Projection("artifacts", folds=[SESSION_ARTIFACTS, USER_ARTIFACTS])
