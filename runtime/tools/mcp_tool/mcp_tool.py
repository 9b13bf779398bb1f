"""McpTool: one tool of an MCP server, declared to the model with the server's JSON schema."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.genai import types
from mcp import types as mcp_types

from runtime.tools.base_tool import BaseTool
from runtime.tools.mcp_tool import fencing

if TYPE_CHECKING:
    from runtime.models import LlmRequest
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
        """The server's own words (for listings); the model gets them fenced (process_llm_request)."""
        return types.FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=self._mcp_tool.input_schema
        )

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        """Declares the tool with the server's descriptions fenced as data, and says so once in the
        system instruction (runtime.tools.mcp_tool.fencing, google-adk 2.13's wording)."""
        llm_request.append_tools([self])
        if not isinstance(llm_request.config.system_instruction, (str, type(None))):
            return  # a Content instruction: nothing to fence against, as in ADK
        schema = self._mcp_tool.input_schema
        fenced = types.FunctionDeclaration(
            name=self.name, description=fencing.fence(self.description),
            parameters_json_schema=fencing.fence_schema(schema) if schema is not None else None,
        )
        for tool in reversed(llm_request.config.tools or []):
            declarations = tool.function_declarations or []
            index = next((i for i in range(len(declarations) - 1, -1, -1) if declarations[i].name == self.name), None)
            if index is not None:
                declarations[index] = fenced
                break
        if fencing.PREAMBLE not in (llm_request.config.system_instruction or ""):
            llm_request.append_instructions([fencing.PREAMBLE])

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
