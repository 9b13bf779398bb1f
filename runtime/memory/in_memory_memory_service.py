"""ADK's module path for InMemoryMemoryService."""

from runtime.memory.service import InMemoryMemoryService

__all__ = ["InMemoryMemoryService"]
