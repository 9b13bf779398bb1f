"""A tiny MCP server for the McpToolset tests, built with the mcp package's own server
(FastMCP, named MCPServer since mcp 2).

    python tests/mcp_server.py stdio
    python tests/mcp_server.py http PORT     # streamable HTTP on 127.0.0.1:PORT/mcp
    python tests/mcp_server.py sse PORT      # HTTP+SSE on 127.0.0.1:PORT/sse
"""

from __future__ import annotations

import os
import sys

try:
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver import MCPServer as FastMCP
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import Context, FastMCP
    from mcp.server.fastmcp.exceptions import ToolError

server = FastMCP("calculator")


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two whole numbers."""
    return a + b


@server.tool()
def greet(name: str, excited: bool = False) -> str:
    """Greets someone by name."""
    return f"Hello, {name}{'!' if excited else '.'}"


@server.tool()
def divide(a: float, b: float) -> float:
    """Divides a by b."""
    if b == 0:
        raise ToolError("cannot divide by zero")
    return a / b


@server.tool()
def server_pid() -> int:
    """The server process's id (the tests check that one process serves a whole conversation)."""
    return os.getpid()


@server.tool()
def caller(ctx: Context) -> str:
    """Who called, by the X-Caller header of the HTTP request ("" over stdio)."""
    return (ctx.headers or {}).get("x-caller", "")


@server.resource("notes://menu", name="menu", mime_type="text/plain")
def menu() -> str:
    """Today's menu."""
    return "Soup of the day: tomato."


@server.resource("notes://logo", name="logo", mime_type="image/png")
def logo() -> bytes:
    """The shop's logo."""
    return b"\x89PNG logo bytes"


@server.prompt(name="waiter")
def waiter(shop: str) -> str:
    """An agent's instruction, with the shop's name from session state."""
    return f"You are the waiter of {shop}. Answer from the menu."


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        server.run("sse" if sys.argv[1] == "sse" else "streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
