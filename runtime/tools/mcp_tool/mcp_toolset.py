"""McpToolset: the tools of an MCP server (over stdio or streamable HTTP) for an agent."""

from __future__ import annotations

import sys
import warnings
from typing import TYPE_CHECKING, Optional, TextIO, Union

from mcp import StdioServerParameters
from mcp import types as mcp_types

from runtime.tools.base_toolset import BaseToolset, ToolPredicate
from runtime.tools.mcp_tool.mcp_session_manager import (
    ConnectionParams,
    MCPSessionManager,
    StdioConnectionParams,
)
from runtime.tools.mcp_tool.mcp_tool import McpTool

if TYPE_CHECKING:
    from runtime.contexts import ReadonlyContext
    from runtime.tools.base_tool import BaseTool


class McpToolset(BaseToolset):
    """Lists the server's tools for every model request and calls them on the server.

    One client session per toolset is opened on first use and kept until ``close()`` (which
    ``Runner.close()`` calls); a stdio server runs as long as that session.
    """

    def __init__(
        self,
        *,
        connection_params: Union[ConnectionParams, StdioServerParameters],
        tool_filter: Optional[Union[ToolPredicate, list[str]]] = None,
        tool_name_prefix: Optional[str] = None,
        errlog: TextIO = sys.stderr,
    ):
        super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
        if isinstance(connection_params, StdioServerParameters):
            connection_params = StdioConnectionParams(server_params=connection_params)
        self.connection_params = connection_params
        self._mcp_session_manager = MCPSessionManager(connection_params, errlog=errlog)

    async def get_tools(self, readonly_context: Optional[ReadonlyContext] = None) -> list[BaseTool]:
        session = await self._mcp_session_manager.create_session()
        listed, cursor = [], None
        while True:
            page = await session.list_tools(params=mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None)
            listed += page.tools
            cursor = page.next_cursor
            if not cursor:
                break
        tools = [McpTool(mcp_tool=t, mcp_session_manager=self._mcp_session_manager) for t in listed]
        return [t for t in tools if self._is_tool_selected(t, readonly_context)]

    async def close(self) -> None:
        await self._mcp_session_manager.close()


class MCPToolset(McpToolset):
    """ADK's older name for McpToolset (deprecated there too)."""

    def __init__(self, **kwargs):
        warnings.warn("MCPToolset is deprecated; use McpToolset.", DeprecationWarning, stacklevel=2)
        super().__init__(**kwargs)
