"""ADK's module path for BaseArtifactService and ensure_part."""

from runtime.artifacts.base import BaseArtifactService, ensure_part
from domain.artifact_versions import ArtifactVersion

__all__ = ["ArtifactVersion", "BaseArtifactService", "ensure_part"]
