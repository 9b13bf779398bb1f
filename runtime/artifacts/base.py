"""The artifact-service interface (ADK's): versioned named blobs per session, or per user for
filenames that start with ``user:``."""

from __future__ import annotations

import abc
from typing import Any, Optional, Union

from google.genai import types

from domain.artifact_versions import ArtifactVersion
from domain.errors import InvalidArgumentError


def ensure_part(artifact: Union[types.Part, dict[str, Any]], filename: str = "") -> types.Part:
    """The artifact as a Part: a dict (camelCase ``inlineData`` or snake_case, as clients send
    JSON) is validated into one; a Part is returned as it is. Anything else, or a dict that is not
    a Part, is an InvalidArgumentError (a ValueError, as google-adk raises)."""
    if isinstance(artifact, dict):
        try:
            artifact = types.Part.model_validate(artifact)
        except Exception as e:
            raise InvalidArgumentError(f"Artifact {filename!r} is not a valid Part: {e}") from None
    if not isinstance(artifact, types.Part):
        raise InvalidArgumentError(
            f"Artifact {filename!r} must be a google.genai types.Part, got {type(artifact).__name__}."
        )
    return artifact


class BaseArtifactService(abc.ABC):
    @abc.abstractmethod
    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        artifact: types.Part,
        session_id: Optional[str] = None,
        custom_metadata: Optional[dict[str, Any]] = None,
    ) -> int:
        """Stores a new version of `filename`; returns its version number (0 for the first)."""

    @abc.abstractmethod
    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: Optional[str] = None,
        version: Optional[int] = None,
    ) -> Optional[types.Part]:
        """The given version of `filename` (the latest when `version` is None), or None."""

    @abc.abstractmethod
    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: Optional[str] = None
    ) -> list[str]:
        """The filenames the session (and its user, for ``user:`` names) has artifacts under."""

    @abc.abstractmethod
    async def delete_artifact(
        self, *, app_name: str, user_id: str, filename: str, session_id: Optional[str] = None
    ) -> None:
        """Deletes every version of `filename`."""

    @abc.abstractmethod
    async def list_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: Optional[str] = None
    ) -> list[int]:
        """The version numbers of `filename`, oldest first."""

    @abc.abstractmethod
    async def list_artifact_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: Optional[str] = None
    ) -> list[ArtifactVersion]:
        """Every version's metadata (number, URI, custom_metadata, creation time, MIME type), oldest first."""

    @abc.abstractmethod
    async def get_artifact_version(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: Optional[str] = None,
        version: Optional[int] = None,
    ) -> Optional[ArtifactVersion]:
        """One version's metadata (the newest when `version` is None), or None."""

    async def close(self) -> None:
        """Release the service's connections and threads."""
