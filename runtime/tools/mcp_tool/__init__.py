"""Tools from MCP servers (the `mcp` package): McpToolset over stdio or streamable HTTP."""

from mcp import StdioServerParameters

from runtime.tools.mcp_tool.mcp_session_manager import (
    McpConnectionError,
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
    "StdioConnectionParams",
    "StdioServerParameters",
    "StreamableHTTPConnectionParams",
]
