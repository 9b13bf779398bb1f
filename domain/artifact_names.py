"""Artifact names and scopes, checked before anything is written.

A filename that starts with ``user:`` (``domain.state.is_user_scoped``) belongs to the user (shared by all their sessions);
any other filename belongs to its session. A filename is a name, never a path: it may not
contain path separators, ``..``, control characters or NUL, and may not be empty.
"""

from __future__ import annotations

import unicodedata
import uuid
from dataclasses import dataclass
from typing import Optional

from domain.errors import InvalidArgumentError
from domain.state import USER_PREFIX, is_user_scoped
from domain.validation import check_ids

MAX_FILENAME_LENGTH = 512

_NAMESPACE = uuid.UUID("0b7a3f4e-6d0c-4c55-9a51-2f1f7c8e3d10")


@dataclass(frozen=True)
class ArtifactScope:
    """Where a filename's versions live: one session, or the user (session_id None)."""

    app_name: str
    user_id: str
    session_id: Optional[str]

    @property
    def log_id(self) -> uuid.UUID:
        """The id of the scope's artifact log, derived so any process finds it without an index."""
        return uuid.uuid5(_NAMESPACE, f"{self.app_name}\x1f{self.user_id}\x1f{self.session_id or ''}")

    def uri(self, filename: str, version: int) -> str:
        """ADK's canonical artifact URI of one version."""
        if self.session_id is None:
            return f"artifact://apps/{self.app_name}/users/{self.user_id}/artifacts/{filename}/versions/{version}"
        return (
            f"artifact://apps/{self.app_name}/users/{self.user_id}/sessions/{self.session_id}"
            f"/artifacts/{filename}/versions/{version}"
        )


def check_filename(filename: object) -> str:
    """Refuses names that are empty, path-like or unprintable; returns the name unchanged."""
    if not isinstance(filename, str):
        raise InvalidArgumentError(f"An artifact filename must be a string, got {type(filename).__name__}.")
    name = filename[len(USER_PREFIX):] if is_user_scoped(filename) else filename
    problem = None
    if not name.strip():
        problem = "it is empty"
    elif "/" in name or "\\" in name:
        problem = "it contains a path separator ('/' or '\\')"
    elif ".." in name:
        problem = "it contains '..'"
    elif name in (".",):
        problem = "it is '.'"
    elif any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in name):
        problem = "it contains a control character"
    elif len(filename) > MAX_FILENAME_LENGTH:
        problem = f"it is longer than {MAX_FILENAME_LENGTH} characters"
    elif name != name.strip():
        problem = "it starts or ends with white space"
    if problem:
        raise InvalidArgumentError(
            f"Invalid artifact filename {filename!r}: {problem}. An artifact filename is a plain name "
            "such as 'report.pdf' (or 'user:report.pdf' to share it across the user's sessions), "
            "not a path."
        )
    return filename


def artifact_scope(app_name: str, user_id: str, filename: str, session_id: Optional[str]) -> ArtifactScope:
    """The scope `filename` lives in. ``user:`` names, and any name saved without a session,
    belong to the user (as ADK documents)."""
    check_ids(app_name, user_id, session_id)
    check_filename(filename)
    if is_user_scoped(filename) or session_id is None:
        return ArtifactScope(app_name, user_id, None)
    return ArtifactScope(app_name, user_id, session_id)
