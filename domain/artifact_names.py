"""Artifact names and scopes, checked before anything is written.

A filename that starts with ``user:`` (``domain.state.is_user_scoped``) belongs to the user (shared by all their sessions);
any other filename belongs to its session. Names may be nested, as in ADK (``docs/report.txt``,
``user:shared/diagram.png``): ``/`` joins segments, none of them empty, ``.`` or ``..``. A name is
never a path (bytes are stored by their hash), and the rules keep it from reading as one anywhere it
is shown or exported: no leading ``/``, no ``\\``, no drive (``C:``), no control characters or NUL.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from pathlib import PurePosixPath, PureWindowsPath
from dataclasses import dataclass
from typing import Optional

from domain.errors import InvalidArgumentError
from domain.state import USER_PREFIX, is_user_scoped
from domain.validation import check_ids

MAX_FILENAME_LENGTH = 512
_DRIVE = re.compile(r"[A-Za-z]:")
_REFERENCE_TAIL = re.compile(r"artifacts/(?P<filename>.+)/versions/(?P<version>[0-9]+)")

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

    def reference(self, uri: str) -> tuple[ArtifactScope, str, int]:
        """The (scope, filename, version) an ``artifact://`` URI names, refused unless it is this
        scope's app and user, and this scope's session (or the user's own files). Parsed from the
        known prefix, so nested filenames and ``group/user`` ids read back exactly."""
        user_root = f"artifact://apps/{self.app_name}/users/{self.user_id}/"
        rest = uri[len(user_root):] if uri.startswith(user_root) else ""
        target = ArtifactScope(self.app_name, self.user_id, None)
        if rest.startswith("sessions/"):
            session_id, _, rest = rest[len("sessions/"):].partition("/")
            if session_id != self.session_id:
                raise InvalidArgumentError(
                    "Session-scoped artifact references must stay within the same session scope "
                    f"({uri!r} points into another session)."
                )
            target = ArtifactScope(self.app_name, self.user_id, session_id)
        elif not rest.startswith("artifacts/"):
            raise InvalidArgumentError(
                "Artifact references must stay within the same app and user scope "  # ADK's sentence
                f"({uri!r} points outside app {self.app_name!r} / user {self.user_id!r}): it must read artifact://apps/<app>/users/<user>/[sessions/<session>/]artifacts/<filename>"
                "/versions/<n>."
            )
        match = _REFERENCE_TAIL.fullmatch(rest)
        if match is None:
            raise InvalidArgumentError(f"Invalid artifact reference {uri!r}.")
        return target, check_filename(match["filename"]), int(match["version"])


def check_filename(filename: object) -> str:
    """Refuses names that are empty, path-like or unprintable; returns the name unchanged."""
    if not isinstance(filename, str):
        raise InvalidArgumentError(f"An artifact filename must be a string, got {type(filename).__name__}.")
    problem = _filename_problem(filename)
    if problem:
        adk = _adk_filename_sentence(filename)
        raise InvalidArgumentError(
            (f"{adk} " if adk else "") + f"Invalid artifact filename {filename!r}: {problem}. Name an artifact like 'report.pdf' or "
            "'docs/report.pdf' ('user:report.pdf' to share it across the user's sessions), not a path."
        )
    return filename


def _adk_filename_sentence(filename: str) -> Optional[str]:
    """google-adk 2.13's words (its file service) for a name it refuses too: rooted or
    drive-qualified, or with a parent segment, read with either platform's separators."""
    name = (filename[len(USER_PREFIX):] if is_user_scoped(filename) else filename).strip()
    if _DRIVE.match(name) or PureWindowsPath(name).root:
        return (f"Rooted or drive-qualified artifact filename {filename!r} is not permitted; provide a "
                "path relative to the storage scope.")
    if ".." in PurePosixPath(name).parts or ".." in PureWindowsPath(name).parts:
        return f"Artifact filename {filename!r} must not contain parent traversal."
    return None


def _filename_problem(filename: str) -> Optional[str]:
    name = filename[len(USER_PREFIX):] if is_user_scoped(filename) else filename
    if not name.strip():
        return "it is empty"
    if len(filename) > MAX_FILENAME_LENGTH:
        return f"it is longer than {MAX_FILENAME_LENGTH} characters"
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in name):
        return "it contains a control character"
    if any(unicodedata.category(ch) == "Cs" for ch in name):  # no store can encode one
        return "it contains a lone surrogate"
    if name != name.strip():
        return "it starts or ends with white space"
    if "\\" in name:
        return "it contains a backslash (nested names use '/')"
    if name.startswith("/"):
        return "it is an absolute path"
    if _DRIVE.match(name):
        return "it starts with a drive letter"
    segments = name.split("/")
    if "" in segments:
        return "it has an empty segment ('//' or a trailing '/')"
    if any(segment in (".", "..") for segment in segments):
        return "it has a '.' or '..' segment"
    return None


def artifact_scope(app_name: str, user_id: str, filename: str, session_id: Optional[str]) -> ArtifactScope:
    """The scope `filename` lives in. ``user:`` names, and any name saved without a session,
    belong to the user (as ADK documents); there `x` and ``user:x`` are one file
    (``domain.artifact_versions.file_key``)."""
    check_ids(app_name, user_id, session_id)
    check_filename(filename)
    if is_user_scoped(filename) or session_id is None:
        return ArtifactScope(app_name, user_id, None)
    return ArtifactScope(app_name, user_id, session_id)
