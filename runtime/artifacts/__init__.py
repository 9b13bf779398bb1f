"""Artifact services: versioned named blobs per session (or per user, for ``user:`` names).

Versions are events in the log; bytes live in a content-addressed blob store.
"""

from runtime.artifacts.base import BaseArtifactService
from runtime.stores.blobs import ArtifactIntegrityError
from runtime.artifacts.service import (
    DEFAULT_MAX_ARTIFACT_BYTES,
    FileArtifactService,
    InMemoryArtifactService,
    LogArtifactService,
    PostgresArtifactService,
    SqliteArtifactService,
    artifact_service_from_url,
)
from domain.artifact_versions import ArtifactVersion

__all__ = [
    "DEFAULT_MAX_ARTIFACT_BYTES",
    "ArtifactIntegrityError",
    "ArtifactVersion",
    "BaseArtifactService",
    "FileArtifactService",
    "InMemoryArtifactService",
    "LogArtifactService",
    "PostgresArtifactService",
    "SqliteArtifactService",
    "artifact_service_from_url",
]
