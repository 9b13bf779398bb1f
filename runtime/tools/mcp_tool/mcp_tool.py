"""McpTool: one tool of an MCP server, declared to the model with the server's JSON schema."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.genai import types
from mcp import types as mcp_types

from runtime.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from runtime.tools.mcp_tool.mcp_session_manager import MCPSessionManager
    from runtime.tools.tool_context import ToolContext


class McpTool(BaseTool):
    def __init__(self, *, mcp_tool: mcp_types.Tool, mcp_session_manager: MCPSessionManager):
        super().__init__(name=mcp_tool.name, description=mcp_tool.description or "")
        self._mcp_tool = mcp_tool
        self._mcp_session_manager = mcp_session_manager

    @property
    def raw_mcp_tool(self) -> mcp_types.Tool:
        return self._mcp_tool

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=self._mcp_tool.input_schema
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """The server's CallToolResult as JSON, keyed as ADK keys it ("content", "isError", …).
        A tool that fails on the server answers with ``isError: true``, which the model reads."""
        session = await self._mcp_session_manager.create_session()
        # By the server's own name: a toolset's tool_name_prefix renames only what the model sees.
        result = await session.call_tool(
            self._mcp_tool.name, arguments=args, read_timeout_seconds=self._mcp_session_manager.read_timeout
        )
        answer = result.model_dump(mode="json", exclude_none=True, by_alias=True)
        answer.pop("resultType", None)
        return answer


MCPTool = McpTool  # ADK's older name
