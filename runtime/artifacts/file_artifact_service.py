"""ADK's module path for FileArtifactService."""

from runtime.artifacts.service import FileArtifactService

__all__ = ["FileArtifactService"]
