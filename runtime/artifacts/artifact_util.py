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
from domain.validation import RESERVED_SEGMENTS, path_segment_problem  # noqa: F401 (ADK's name here)

SCHEME = "artifact://"
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
    """Refuses an id that could change a path or URI built from it, in google-adk 2.13's words.
    (Chronicle's own ids follow stricter rules, domain.validation.)"""
    problem = path_segment_problem(value, field_name)
    if problem:
        raise InvalidArgumentError(problem)
