"""google-adk 2.13's `artifacts.artifact_util`: artifact URIs and the path-segment check.

A version's URI is ``artifact://apps/<app>/users/<user>/[sessions/<session>/]artifacts/<filename>
/versions/<n>`` (built by domain.artifact_names, the one place that writes it); a Part whose
file_data points at such a URI is a reference to that version, which a save stores as a link."""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Optional

from google.genai import types

from domain.artifact_names import ArtifactScope
from domain.errors import InvalidArgumentError

SCHEME = "artifact://"
# Segments an app, user or session id cannot contain between slashes: they would shift the URI's fields.
RESERVED_SEGMENTS = frozenset({"apps", "users", "sessions", "artifacts", "versions"})
_ID = r"(?:(?!/(?:apps|users|sessions|artifacts|versions)/).)+?"
_URI = re.compile(
    rf"artifact://apps/(?P<app>{_ID})/users/(?P<user>{_ID})(?:/sessions/(?P<session>{_ID}))?"
    r"/artifacts/(?P<filename>.+)/versions/(?P<version>\d+)"
)


class ParsedArtifactUri(NamedTuple):
    app_name: str
    user_id: str
    session_id: Optional[str]
    filename: str
    version: int


def parse_artifact_uri(uri: str) -> Optional[ParsedArtifactUri]:
    """The fields of an artifact URI, or None when it is not one."""
    match = _URI.fullmatch(uri or "")
    if match is None:
        return None
    return ParsedArtifactUri(match["app"], match["user"], match["session"], match["filename"], int(match["version"]))


def get_artifact_uri(app_name: str, user_id: str, filename: str, version: int, session_id: Optional[str] = None) -> str:
    """The URI of one version (of the user's file when `session_id` is None or empty)."""
    return ArtifactScope(app_name, user_id, session_id or None).uri(filename, version)


def is_artifact_ref(artifact: types.Part) -> bool:
    """True for a Part that points at a stored version instead of holding bytes."""
    return bool(artifact.file_data and (artifact.file_data.file_uri or "").startswith(SCHEME))


def validate_path_segment(value: Any, field_name: str) -> None:
    """Refuses an id that could change a path or URI built from it: empty, with a NUL byte,
    absolute or drive-qualified, with a `.`/`..` segment, or with a reserved segment between
    slashes. (Chronicle's own ids follow stricter rules, domain.validation.)"""
    if not isinstance(value, str):
        return  # not text: nothing a path could be built from (ADK lets such values through too)
    problem = None
    if not value.strip():
        problem = "must not be empty"
    elif "\x00" in value:
        problem = "must not contain null bytes"
    elif value.startswith(("/", "\\")):
        problem = "must not be an absolute path or start with a slash"
    elif re.match(r"[A-Za-z]:", value):
        problem = "must not be drive-qualified"
    else:
        segments = value.replace("\\", "/").split("/")
        if value in (".", "..") or ".." in segments:
            problem = "must not contain traversal segments"
        elif len(segments) > 1 and RESERVED_SEGMENTS & {s.casefold() for s in segments}:
            problem = "must not contain reserved path segments"
    if problem:
        shown = "" if problem in ("must not be empty", "must not contain null bytes") else f" {value!r}"
        raise InvalidArgumentError(f"{field_name}{shown} {problem}.")
