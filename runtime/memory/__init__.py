"""Memory services: sessions added to a searchable memory of their user, kept as a projection
of the log and ranked with the store's own full-text search."""

from runtime.memory.base import BaseMemoryService, MemoryEntry, SearchMemoryResponse
from projections.memory import MemoryDoc
from runtime.memory.service import (
    DEFAULT_MAX_RESULTS,
    InMemoryMemoryService,
    LogMemoryService,
    PostgresMemoryService,
    SqliteMemoryService,
    memory_service_from_url,
)

__all__ = [
    "DEFAULT_MAX_RESULTS",
    "BaseMemoryService",
    "InMemoryMemoryService",
    "LogMemoryService",
    "MemoryDoc",
    "MemoryEntry",
    "PostgresMemoryService",
    "SearchMemoryResponse",
    "SqliteMemoryService",
    "memory_service_from_url",
]
