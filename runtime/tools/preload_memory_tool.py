"""ADK's module path for the preload_memory tool."""

from runtime.tools.preload_memory import PreloadMemoryTool, preload_memory_tool

__all__ = ["PreloadMemoryTool", "preload_memory_tool"]
