"""ADK's module path for the load_memory tool."""

from runtime.tools.load_memory import LoadMemoryResponse, LoadMemoryTool, load_memory, load_memory_tool

__all__ = ["LoadMemoryResponse", "LoadMemoryTool", "load_memory", "load_memory_tool"]
