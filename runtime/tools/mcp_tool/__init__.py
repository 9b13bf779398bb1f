"""Tools from MCP servers (the `mcp` package): McpToolset over stdio, streamable HTTP or HTTP+SSE."""

from mcp import StdioServerParameters

from runtime.tools.mcp_tool.mcp_session_manager import (
    McpConnectionError,
    SseConnectionParams,
    StdioConnectionParams,
    StreamableHTTPConnectionParams,
)
from runtime.tools.mcp_tool.mcp_tool import MCPTool, McpTool
from runtime.tools.mcp_tool.mcp_toolset import MCPToolset, McpToolset

__all__ = [
    "MCPTool",
    "MCPToolset",
    "McpConnectionError",
    "McpTool",
    "McpToolset",
    "SseConnectionParams",
    "StdioConnectionParams",
    "StdioServerParameters",
    "StreamableHTTPConnectionParams",
]
