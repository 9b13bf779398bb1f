"""ADK's module path for BaseArtifactService."""

from runtime.artifacts.base import BaseArtifactService
from runtime.artifacts.versions import ArtifactVersion

__all__ = ["ArtifactVersion", "BaseArtifactService"]
