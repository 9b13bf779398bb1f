"""McpTool: one tool of an MCP server, declared to the model with the server's JSON schema.

With an auth scheme (its toolset's, as google-adk 2.13 passes it on) the call runs only with a
credential (runtime.tools.base_authenticated_tool), which travels as HTTP headers on a session
opened with them (runtime.auth.auth_headers)."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional, Union

from google.genai import types
from mcp import types as mcp_types

from runtime.auth.auth_credential import AuthCredential
from runtime.auth.auth_headers import api_key_location, build_auth_headers, merged_headers
from runtime.auth.auth_tool import AuthConfig
from runtime.tools.base_authenticated_tool import BaseAuthenticatedTool
from runtime.tools.function_tool import ConfirmationPolicy, confirmation_required
from runtime.tools.mcp_tool import fencing

if TYPE_CHECKING:
    from runtime.contexts import ReadonlyContext
    from runtime.models import LlmRequest
    from runtime.tools.mcp_tool.mcp_session_manager import MCPSessionManager
    from runtime.tools.tool_context import ToolContext

HeaderProvider = Callable[["ReadonlyContext"], Union[dict[str, str], Awaitable[dict[str, str]]]]


async def provided_headers(
    header_provider: Optional[HeaderProvider], readonly_context: Any
) -> Optional[dict[str, str]]:
    """What a toolset's header_provider gives for this context (it may be async)."""
    if header_provider is None or readonly_context is None:
        return None
    headers = header_provider(readonly_context)
    return await headers if inspect.isawaitable(headers) else headers


class McpTool(BaseAuthenticatedTool):
    def __init__(
        self,
        *,
        mcp_tool: mcp_types.Tool,
        mcp_session_manager: MCPSessionManager,
        auth_scheme: Any = None,
        auth_credential: Optional[AuthCredential] = None,
        header_provider: Optional[HeaderProvider] = None,
        require_confirmation: ConfirmationPolicy = False,
    ):
        auth_config = AuthConfig(auth_scheme=auth_scheme, raw_auth_credential=auth_credential) if auth_scheme else None
        super().__init__(name=mcp_tool.name, description=mcp_tool.description or "", auth_config=auth_config)
        self._mcp_tool = mcp_tool
        self._mcp_session_manager = mcp_session_manager
        self._header_provider = header_provider
        self._require_confirmation = require_confirmation

    async def check_require_confirmation(self, args: dict[str, Any], tool_context: ToolContext) -> bool:
        return await confirmation_required(self._require_confirmation, args, tool_context)

    @property
    def raw_mcp_tool(self) -> mcp_types.Tool:
        return self._mcp_tool

    def _get_declaration(self) -> types.FunctionDeclaration:
        """The server's own words (for listings); the model gets them fenced (process_llm_request)."""
        return types.FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=self._mcp_tool.input_schema,
            response_json_schema=self._mcp_tool.output_schema,
        )

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        """Declares the tool with the server's descriptions fenced as data, and says so once in the
        system instruction (runtime.tools.mcp_tool.fencing, google-adk 2.13's wording)."""
        llm_request.append_tools([self])
        if not isinstance(llm_request.config.system_instruction, (str, type(None))):
            return  # a Content instruction: nothing to fence against, as in ADK
        schema, output = self._mcp_tool.input_schema, self._mcp_tool.output_schema
        fenced = types.FunctionDeclaration(
            name=self.name, description=fencing.fence(self.description),
            parameters_json_schema=fencing.fence_schema(schema) if schema is not None else None,
            response_json_schema=fencing.fence_schema(output) if output is not None else None,
        )
        for tool in reversed(llm_request.config.tools or []):
            declarations = tool.function_declarations or []
            index = next((i for i in range(len(declarations) - 1, -1, -1) if declarations[i].name == self.name), None)
            if index is not None:
                declarations[index] = fenced
                break
        if fencing.PREAMBLE not in (llm_request.config.system_instruction or ""):
            llm_request.append_instructions([fencing.PREAMBLE])

    async def _run_async_impl(
        self, *, args: dict[str, Any], tool_context: ToolContext, credential: Optional[AuthCredential]
    ) -> Any:
        """The server's CallToolResult as JSON, keyed as ADK keys it ("content", "isError", …).
        A tool that fails on the server answers with ``isError: true``, which the model reads."""
        provided = await provided_headers(self._header_provider, tool_context)
        headers = merged_headers(self._auth_headers(credential), provided)
        session = await self._mcp_session_manager.create_session(headers or None)
        # By the server's own name: a toolset's tool_name_prefix renames only what the model sees.
        result = await session.call_tool(
            self._mcp_tool.name, arguments=args, read_timeout_seconds=self._mcp_session_manager.read_timeout
        )
        answer = result.model_dump(mode="json", exclude_none=True, by_alias=True)
        answer.pop("resultType", None)
        return answer

    def _auth_headers(self, credential: Optional[AuthCredential]) -> Optional[dict[str, str]]:
        """The credential as headers; an API key the scheme puts elsewhere than in a header is
        refused with a ValueError, as google-adk 2.13's McpTool refuses it."""
        if credential is not None and credential.api_key and not credential.oauth2 and not credential.http:
            scheme = self._auth_config.auth_scheme if self._auth_config else None
            if scheme is None:
                raise ValueError("Cannot find corresponding auth scheme for API key credential.")
            location = api_key_location(scheme)
            if location != "header":
                raise ValueError(
                    "McpTool only supports header-based API key authentication. "
                    f"Configured location: {location} (scheme: {type(scheme).__name__})"
                )
        return build_auth_headers(credential, self._auth_config.auth_scheme if self._auth_config else None)


MCPTool = McpTool  # ADK's older name
