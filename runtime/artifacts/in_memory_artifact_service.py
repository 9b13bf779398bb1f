"""ADK's module path for InMemoryArtifactService."""

from runtime.artifacts.service import InMemoryArtifactService

__all__ = ["InMemoryArtifactService"]
