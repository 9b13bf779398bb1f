"""ADK's module path for BaseArtifactService."""

from runtime.artifacts.base import BaseArtifactService
from domain.artifact_versions import ArtifactVersion

__all__ = ["ArtifactVersion", "BaseArtifactService"]
