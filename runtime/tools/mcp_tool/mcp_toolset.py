"""McpToolset: the tools of an MCP server (over stdio or streamable HTTP) for an agent.

With ``auth_scheme`` (and optionally ``auth_credential``) the toolset needs a credential before
its tools can be listed, as in google-adk 2.13: ``get_auth_config()`` names it, the agent
resolves it before each model call or asks the client for it and pauses
(runtime.agents.toolset_auth), and every request to the server then carries it as headers."""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
import warnings
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional, TextIO, TypeVar, Union

from mcp import StdioServerParameters
from mcp import types as mcp_types

from runtime.auth.auth_credential import AuthCredential
from runtime.auth.auth_headers import build_auth_headers, merged_headers
from runtime.auth.auth_schemes import as_auth_scheme
from runtime.auth.auth_tool import AuthConfig
from runtime.tools.base_toolset import BaseToolset, ToolPredicate
from runtime.tools.function_tool import ConfirmationPolicy
from runtime.tools.mcp_tool.mcp_session_manager import (
    ConnectionParams,
    MCPSessionManager,
    StdioConnectionParams,
)
from runtime.tools.mcp_tool.mcp_tool import HeaderProvider, McpTool, provided_headers

if TYPE_CHECKING:
    from runtime.contexts import ReadonlyContext
    from runtime.tools.base_tool import BaseTool

logger = logging.getLogger(__name__)
T = TypeVar("T")


def retry_once(method: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """Runs a toolset's read again, once, on a new session when it fails (the server restarted,
    say); a cancellation is never retried."""

    @functools.wraps(method)
    async def retried(self: Any, *args: Any, **kwargs: Any) -> T:
        try:
            return await method(self, *args, **kwargs)
        except Exception as error:  # noqa: BLE001 - retried once, then it is the caller's
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            logger.info("Retrying %s on a new session after an error: %s", method.__name__, error)
            await self._reconnect(*args, **kwargs)
            return await method(self, *args, **kwargs)

    return retried


class McpToolset(BaseToolset):
    """Lists the server's tools for every model request (sorted by name, as ADK sorts them: the
    server's order is not part of MCP, and an order that changes would change the request) and
    calls them on the server. ``require_confirmation`` (True, or a function of a call's arguments)
    makes each call wait for a person's approval, as a FunctionTool's does.

    One client session per set of request headers is opened on first use and kept until
    ``close()`` (which ``Runner.close()`` calls); a stdio server runs as long as its session.
    A listing that fails is tried once more (ADK's ``retry_on_errors``), on a session reopened if
    the old one died.
    """

    def __init__(
        self,
        *,
        connection_params: Union[ConnectionParams, StdioServerParameters],
        tool_filter: Optional[Union[ToolPredicate, list[str]]] = None,
        tool_name_prefix: Optional[str] = None,
        errlog: TextIO = sys.stderr,
        auth_scheme: Any = None,
        auth_credential: Optional[AuthCredential] = None,
        credential_key: Optional[str] = None,
        header_provider: Optional[HeaderProvider] = None,
        require_confirmation: ConfirmationPolicy = False,
    ):
        super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
        if not connection_params:
            raise ValueError("Missing connection params in McpToolset.")
        self._connection_params = connection_params  # as given; the session manager's are normalised
        if isinstance(connection_params, StdioServerParameters):
            connection_params = StdioConnectionParams(server_params=connection_params)
        self._errlog = errlog
        self._mcp_session_manager = MCPSessionManager(connection_params, errlog=errlog)
        if isinstance(auth_credential, dict):  # from an agent config
            auth_credential = AuthCredential.model_validate(auth_credential)
        self._auth_scheme = as_auth_scheme(auth_scheme) if isinstance(auth_scheme, dict) else auth_scheme
        self._auth_credential = auth_credential
        self._header_provider = header_provider
        self._require_confirmation = require_confirmation
        # One instance for the toolset's life (ADK's): whoever fills in its exchanged credential
        # is read by _get_auth_headers.
        self._auth_config: Optional[AuthConfig] = None
        if auth_scheme:
            self._auth_config = AuthConfig(
                auth_scheme=self._auth_scheme, raw_auth_credential=auth_credential, credential_key=credential_key)

    @property
    def connection_params(self) -> Union[ConnectionParams, StdioServerParameters]:
        return self._connection_params

    @property
    def errlog(self) -> TextIO:
        return self._errlog

    @property
    def require_confirmation(self) -> ConfirmationPolicy:
        return self._require_confirmation

    @property
    def auth_scheme(self) -> Any:
        return self._auth_scheme

    @property
    def auth_credential(self) -> Optional[AuthCredential]:
        return self._auth_credential

    @property
    def header_provider(self) -> Optional[HeaderProvider]:
        return self._header_provider

    def get_auth_config(self) -> Optional[AuthConfig]:
        return self._auth_config

    def _get_auth_headers(self, readonly_context: Optional[ReadonlyContext] = None) -> Optional[dict[str, str]]:
        """The toolset's credential as headers: the one resolved for this invocation, else the
        config's exchanged credential; None without auth or without a credential."""
        if self._auth_config is None:
            return None
        credential = readonly_context.get_credential(self._auth_config.credential_key) if readonly_context else None
        credential = credential or self._auth_config.exchanged_auth_credential
        return build_auth_headers(credential, self._auth_config.auth_scheme)

    async def _headers(self, readonly_context: Optional[ReadonlyContext]) -> Optional[dict[str, str]]:
        """This context's headers: its header provider's, its credential's on top."""
        provided = await provided_headers(self._header_provider, readonly_context)
        return merged_headers(self._get_auth_headers(readonly_context), provided) or None

    async def _session(self, readonly_context: Optional[ReadonlyContext]) -> Any:
        return await self._mcp_session_manager.create_session(await self._headers(readonly_context))

    async def _reconnect(self, readonly_context: Optional[ReadonlyContext] = None) -> None:
        """Drops the session this context's requests use, after it failed."""
        await self._mcp_session_manager.discard(await self._headers(readonly_context))

    @retry_once
    async def get_tools(self, readonly_context: Optional[ReadonlyContext] = None) -> list[BaseTool]:
        session = await self._session(readonly_context)
        listed = await _all_pages(session.list_tools, "tools")
        tools = [
            McpTool(mcp_tool=t, mcp_session_manager=self._mcp_session_manager, auth_scheme=self._auth_scheme,
                    auth_credential=self._auth_credential, header_provider=self._header_provider,
                    require_confirmation=self._require_confirmation)
            for t in listed
        ]
        return sorted((t for t in tools if self._is_tool_selected(t, readonly_context)), key=lambda t: t.name)

    async def list_resources(self, readonly_context: Optional[ReadonlyContext] = None) -> list[str]:
        """The names of the server's resources."""
        return [resource.name for resource in await self._resources(readonly_context)]

    async def get_resource_info(self, name: str, readonly_context: Optional[ReadonlyContext] = None) -> dict[str, Any]:
        """The resource's listing (uri, name, mimeType, ...); ValueError if the server has none so named."""
        for resource in await self._resources(readonly_context):
            if resource.name == name:
                return resource.model_dump(mode="json", exclude_none=True, by_alias=True)
        raise ValueError(f"Resource with name '{name}' not found.")

    async def read_resource(self, name: str, readonly_context: Optional[ReadonlyContext] = None) -> list[Any]:
        """The contents of the named resource (text or base64 blobs, as the server sends them)."""
        info = await self.get_resource_info(name, readonly_context)
        if "uri" not in info:
            raise ValueError(f"Resource '{name}' has no URI.")
        session = await self._session(readonly_context)
        return list((await session.read_resource(uri=info["uri"])).contents)

    async def _resources(self, readonly_context: Optional[ReadonlyContext] = None) -> list[mcp_types.Resource]:
        session = await self._session(readonly_context)
        return await _all_pages(session.list_resources, "resources")

    async def close(self) -> None:
        await self._mcp_session_manager.close()


async def _all_pages(list_page: Any, field: str) -> list[Any]:
    """Every item of a paginated MCP listing (`session.list_tools`, `list_resources`)."""
    listed: list[Any] = []
    cursor = None
    while True:
        page = await list_page(params=mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        listed += getattr(page, field)
        cursor = page.next_cursor
        if not cursor:
            return listed


class MCPToolset(McpToolset):
    """ADK's older name for McpToolset (deprecated there too)."""

    def __init__(self, **kwargs):
        warnings.warn("MCPToolset is deprecated; use McpToolset.", DeprecationWarning, stacklevel=2)
        super().__init__(**kwargs)
