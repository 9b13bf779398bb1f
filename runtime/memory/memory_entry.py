"""ADK's module path for MemoryEntry."""

from runtime.memory.base import MemoryEntry

__all__ = ["MemoryEntry"]
