"""ADK's module path for LongRunningFunctionTool."""

from runtime.tools.function_tool import LongRunningFunctionTool

__all__ = ["LongRunningFunctionTool"]
