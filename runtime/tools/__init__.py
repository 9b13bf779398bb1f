"""Agent tools: what a model can call. (The operator's command line is the top-level `tools`.)"""

from runtime.tools.agent_tool import AgentTool
from runtime.tools.base_tool import BaseTool, BaseToolset
from runtime.tools.declarations import build_function_declaration
from runtime.tools.function_tool import FunctionTool, LongRunningFunctionTool
from runtime.tools.tool_context import ToolContext
from runtime.tools.transfer_to_agent_tool import TransferToAgentTool, transfer_to_agent

__all__ = [
    "AgentTool",
    "BaseTool",
    "BaseToolset",
    "FunctionTool",
    "LongRunningFunctionTool",
    "ToolContext",
    "TransferToAgentTool",
    "build_function_declaration",
    "transfer_to_agent",
]
