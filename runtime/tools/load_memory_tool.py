"""ADK's module path for the load_memory tool."""

from runtime.tools.load_memory import LoadMemoryTool, load_memory_tool

__all__ = ["LoadMemoryTool", "load_memory_tool"]
