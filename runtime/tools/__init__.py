"""Agent tools: what a model can call. (The operator's command line is the top-level `tools`.)"""

from typing import Any

from runtime.tools.agent_tool import AgentTool
from runtime.tools.base_tool import BaseTool
from runtime.tools.base_toolset import BaseToolset, ToolPredicate
from runtime.tools.declarations import build_function_declaration
from runtime.tools.enterprise_search_tool import EnterpriseWebSearchTool, enterprise_web_search_tool
from runtime.tools.example_tool import ExampleTool
from runtime.tools.exit_loop_tool import exit_loop
from runtime.tools.function_tool import FunctionTool, LongRunningFunctionTool
from runtime.tools.get_user_choice_tool import get_user_choice_tool
from runtime.tools.google_search_tool import GoogleSearchTool, google_search
from runtime.tools.load_artifacts_tool import LoadArtifactsTool, load_artifacts_tool
from runtime.tools.load_memory import LoadMemoryTool, load_memory_tool
from runtime.tools.preload_memory import PreloadMemoryTool, preload_memory_tool
from runtime.tools.request_input_tool import request_input
from runtime.tools.tool_confirmation import ToolConfirmation
from runtime.tools.tool_context import ToolContext
from runtime.tools.transfer_to_agent_tool import TransferToAgentTool, transfer_to_agent
from runtime.tools.url_context_tool import UrlContextTool, url_context
from runtime.tools.google_maps_grounding_tool import GoogleMapsGroundingTool, google_maps_grounding
from runtime.tools.enterprise_search_tool import EnterpriseWebSearchTool, enterprise_web_search_tool
from runtime.tools.vertex_ai_search_tool import VertexAiSearchTool

# ADK's names for the ready-made tool instances.
enterprise_web_search = enterprise_web_search_tool
get_user_choice = get_user_choice_tool
load_artifacts = load_artifacts_tool
load_memory = load_memory_tool
preload_memory = preload_memory_tool

# The MCP toolset loads the `mcp` package, so it is imported on first use, as in ADK.
_MCP_NAMES = {"McpToolset", "MCPToolset", "StdioConnectionParams", "StreamableHTTPConnectionParams",
              "StdioServerParameters"}


def __getattr__(name: str) -> Any:
    if name in _MCP_NAMES:
        from runtime.tools import mcp_tool

        return getattr(mcp_tool, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EnterpriseWebSearchTool",
    "GoogleMapsGroundingTool",
    "enterprise_web_search",
    "google_maps_grounding",
    "request_input",
    "AgentTool",
    "BaseTool",
    "BaseToolset",
    "EnterpriseWebSearchTool",
    "ExampleTool",
    "FunctionTool",
    "GoogleSearchTool",
    "LoadArtifactsTool",
    "LoadMemoryTool",
    "LongRunningFunctionTool",
    "MCPToolset",
    "McpToolset",
    "PreloadMemoryTool",
    "StdioConnectionParams",
    "StdioServerParameters",
    "StreamableHTTPConnectionParams",
    "ToolConfirmation",
    "ToolContext",
    "ToolPredicate",
    "TransferToAgentTool",
    "UrlContextTool",
    "VertexAiSearchTool",
    "build_function_declaration",
    "enterprise_web_search",
    "exit_loop",
    "get_user_choice",
    "google_search",
    "load_artifacts",
    "load_memory",
    "preload_memory",
    "request_input",
    "transfer_to_agent",
    "url_context",
]
