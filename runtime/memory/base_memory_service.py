"""ADK's module path for BaseMemoryService."""

from runtime.memory.base import BaseMemoryService, SearchMemoryResponse

__all__ = ["BaseMemoryService", "SearchMemoryResponse"]
