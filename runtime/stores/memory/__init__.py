"""The in-memory store: eventsourcing's POPO recorder plus the derived rows, under its lock."""

from runtime.stores.memory.recorder import MemoryLogRecorder
from runtime.stores.memory.store import MemoryStore, open_memory_store

__all__ = ["MemoryLogRecorder", "MemoryStore", "open_memory_store"]
