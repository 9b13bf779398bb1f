"""How an McpToolset reaches its server, and the one MCP client session it keeps open.

The MCP SDK's transports are anyio context managers that must be entered and left by the
same task, while a Runner lists and calls tools from whichever task runs the turn. So the
session lives in a task of its own, opened on first use, reopened if it died or the event
loop changed (``Runner.run`` starts a new loop per call), and closed by ``close()``. Requests
that carry different headers (one user's credential, another's) get sessions of their own.
"""

from __future__ import annotations

import asyncio
import json
import sys
from contextlib import AsyncExitStack
from typing import Any, Optional, TextIO, Union

from mcp import ClientSession, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from pydantic import BaseModel

from domain.errors import ChronicleError


class McpConnectionError(ChronicleError, ConnectionError):
    """The MCP server could not be started or reached, or did not finish the MCP handshake."""


class StdioConnectionParams(BaseModel):
    """A local MCP server started as a subprocess and spoken to over its stdin and stdout."""

    server_params: StdioServerParameters
    timeout: float = 5.0  # seconds to start the server and finish the handshake


class StreamableHTTPConnectionParams(BaseModel):
    """An MCP server reached over streamable HTTP."""

    url: str
    headers: Optional[dict[str, Any]] = None
    timeout: float = 5.0  # seconds to connect and finish the handshake
    sse_read_timeout: float = 300.0  # seconds to wait for one tool call's answer
    terminate_on_close: bool = True


class SseConnectionParams(BaseModel):
    """An MCP server reached over the older HTTP+SSE transport (server-sent events one way, POSTs the other)."""

    url: str
    headers: Optional[dict[str, Any]] = None
    timeout: float = 5.0  # seconds to connect and finish the handshake
    sse_read_timeout: float = 300.0  # seconds to wait for one tool call's answer


ConnectionParams = Union[StdioConnectionParams, StreamableHTTPConnectionParams, SseConnectionParams]


def describe(params: ConnectionParams) -> str:
    if isinstance(params, StdioConnectionParams):
        return " ".join([params.server_params.command, *params.server_params.args])
    return params.url


class _HeldSession:
    """One open client session, and the task that holds its transport open."""

    def __init__(self) -> None:
        self.session: Optional[ClientSession] = None
        self.task: Optional[asyncio.Task[None]] = None
        self.closing = asyncio.Event()

    def alive(self) -> bool:
        return self.session is not None and self.task is not None and not self.task.done()

    async def stop(self) -> None:
        task, self.task, self.session = self.task, None, None
        self.closing.set()
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(task, 5)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                task.cancel()
        elif task is not None and not task.cancelled():
            task.exception()  # already reported to the caller; retrieved so asyncio does not warn




class MCPSessionManager:
    """Keeps one session per set of request headers (google-adk 2.13 pools them the same way):
    calls made with one user's credential never travel on a session opened with another's."""

    def __init__(self, connection_params: ConnectionParams, errlog: TextIO = sys.stderr):
        self.connection_params = connection_params
        self._errlog = errlog
        self._held: dict[str, _HeldSession] = {}
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._lock: Optional[asyncio.Lock] = None

    @property
    def read_timeout(self) -> Optional[float]:
        params = self.connection_params
        return getattr(params, "sse_read_timeout", None)  # the HTTP transports have one

    async def create_session(self, headers: Optional[dict[str, str]] = None) -> ClientSession:
        """The open session for these headers (sent on every HTTP request, on top of the connection
        params' own; a stdio server has no headers), connecting first if there is none on this
        event loop."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new loop: the old sessions (if any) are unusable there
            self._held, self._lock, self._loop = {}, asyncio.Lock(), loop
        key = self._pool_key(headers)
        async with self._lock:
            held = self._held.get(key)
            if held is not None and held.alive():
                return held.session
            held = self._held[key] = _HeldSession()
            ready: asyncio.Future[ClientSession] = loop.create_future()
            held.task = loop.create_task(self._hold(ready, held.closing, headers), name="mcp-session")
            try:
                held.session = await asyncio.wait_for(asyncio.shield(ready), self.connection_params.timeout)
            except Exception as e:
                await held.stop()
                del self._held[key]
                if isinstance(e, McpConnectionError):
                    raise
                raise McpConnectionError(
                    f"Could not connect to the MCP server {describe(self.connection_params)!r}: "
                    f"{type(e).__name__}: {e or 'no answer in time'}. Check that it runs and speaks MCP."
                ) from e
            return held.session

    def _pool_key(self, headers: Optional[dict[str, str]]) -> str:
        """Which session requests with these headers share: a stdio server has one (it gets no headers)."""
        if isinstance(self.connection_params, StdioConnectionParams):
            return ""
        return json.dumps(sorted((headers or {}).items()))

    async def _hold(
        self, ready: asyncio.Future[ClientSession], closing: asyncio.Event, headers: Optional[dict[str, str]]
    ) -> None:
        try:
            async with AsyncExitStack() as stack:
                read, write = (await stack.enter_async_context(await self._transport(stack, headers)))[:2]
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                ready.set_result(session)
                await closing.wait()
        except BaseException as e:  # noqa: BLE001 - handed to the caller waiting for the session
            if not ready.done():
                ready.set_exception(e if isinstance(e, Exception) else McpConnectionError(str(e) or type(e).__name__))
            if isinstance(e, asyncio.CancelledError):
                raise

    async def _transport(self, stack: AsyncExitStack, extra_headers: Optional[dict[str, str]]) -> Any:
        params = self.connection_params
        if isinstance(params, StdioConnectionParams):
            return stdio_client(params.server_params, errlog=self._errlog)
        headers = {k: str(v) for k, v in (params.headers or {}).items()}
        headers.update(extra_headers or {})
        if isinstance(params, SseConnectionParams):
            return sse_client(params.url, headers=headers, timeout=params.timeout, sse_read_timeout=params.sse_read_timeout)
        # The transport leaves a client it was given open: the stack closes it with the session.
        client = await stack.enter_async_context(create_mcp_http_client(headers=headers))
        return streamable_http_client(params.url, http_client=client, terminate_on_close=params.terminate_on_close)

    async def discard(self, headers: Optional[dict[str, str]] = None) -> None:
        """Closes the session for these headers (one that failed): the next use opens a new one."""
        if self._loop is asyncio.get_running_loop():
            held = self._held.pop(self._pool_key(headers), None)
            if held is not None:
                await held.stop()

    async def close(self) -> None:
        """Close every session and, for stdio, stop the server process."""
        if self._loop is asyncio.get_running_loop():
            held, self._held = list(self._held.values()), {}
            for session in held:
                await session.stop()
