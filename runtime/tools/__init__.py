"""Agent tools: what a model can call. (The operator's command line is the top-level `tools`.)"""

from runtime.tools.agent_tool import AgentTool
from runtime.tools.base_tool import BaseTool, BaseToolset
from runtime.tools.declarations import build_function_declaration
from runtime.tools.function_tool import FunctionTool, LongRunningFunctionTool
from runtime.tools.load_memory import LoadMemoryTool, load_memory_tool
from runtime.tools.preload_memory import PreloadMemoryTool, preload_memory_tool
from runtime.tools.tool_confirmation import ToolConfirmation
from runtime.tools.tool_context import ToolContext
from runtime.tools.transfer_to_agent_tool import TransferToAgentTool, transfer_to_agent

# ADK's names for the ready-made memory tools.
load_memory = load_memory_tool
preload_memory = preload_memory_tool

__all__ = [
    "AgentTool",
    "BaseTool",
    "BaseToolset",
    "FunctionTool",
    "LoadMemoryTool",
    "LongRunningFunctionTool",
    "PreloadMemoryTool",
    "ToolConfirmation",
    "ToolContext",
    "TransferToAgentTool",
    "build_function_declaration",
    "load_memory",
    "preload_memory",
    "transfer_to_agent",
]
