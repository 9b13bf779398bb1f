"""A tiny MCP server for the McpToolset tests, built with the mcp package's own server
(FastMCP, named MCPServer since mcp 2).

    python tests/mcp_server.py stdio
    python tests/mcp_server.py http PORT     # streamable HTTP on 127.0.0.1:PORT/mcp
    python tests/mcp_server.py sse PORT      # HTTP+SSE on 127.0.0.1:PORT/sse

Over streamable HTTP it also records, for every JSON-RPC message it is sent, the method and the
credential headers that came with it (Authorization, X-API-Key): `GET /seen` answers the list and
`DELETE /seen` empties it, so a test can check which calls carried which credential.
"""

from __future__ import annotations

import base64
import hashlib
import json
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


@server.tool()
def whoami(ctx: Context) -> str:
    """Who the caller is, by the credential its HTTP request carried."""
    headers = ctx.headers or {}
    key = headers.get("x-api-key") or headers.get("authorization", "").partition(" ")[2]
    return f"account …{key[-4:]}" if key else "anonymous"


SEEN: list[dict[str, str]] = []
CREDENTIAL_HEADERS = ("authorization", "x-api-key")


def recording(app):
    """The ASGI app, recording each POSTed JSON-RPC message's method and credential headers."""

    async def record(scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"].rstrip("/") != "/mcp":
            return await app(scope, receive, send)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        body = bytearray()

        async def tee():
            message = await receive()
            body.extend(message.get("body", b""))
            if message["type"] == "http.request" and not message.get("more_body"):
                method = json.loads(bytes(body) or b"{}").get("method", "")
                SEEN.append({"method": method, **{h: headers[h] for h in CREDENTIAL_HEADERS if h in headers}})
            return message

        return await app(scope, tee, send)

    return record


@server.custom_route("/token", methods=["POST"])
async def token(request):
    """An OAuth2 token endpoint: a code (or a refresh token) buys the access token `tok-<it>`,
    good for an hour; a code `short-<it>` buys one already expired, whose refresh token buys
    `tok-<it>`. A code `<it>.<S256 challenge>` (a PKCE sign-in) is good only with the verifier of
    that challenge. Recorded as `token/<grant>`."""
    from starlette.responses import JSONResponse

    form = await request.form()
    grant = form.get("grant_type", "")
    credentials = {h: request.headers[h] for h in CREDENTIAL_HEADERS if h in request.headers}
    SEEN.append({"method": f"token/{grant}", **credentials})
    given = {"authorization_code": form.get("code"), "refresh_token": form.get("refresh_token"),
             "client_credentials": form.get("client_id") or "client"}.get(grant)
    if given and grant == "authorization_code" and "." in given:
        given, challenge = given.split(".", 1)
        verifier = form.get("code_verifier", "").encode()
        if base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).decode().rstrip("=") != challenge:
            given = None
    if not given:
        return JSONResponse({"error": "invalid_grant"}, status_code=400)
    expired = grant == "authorization_code" and given.startswith("short-")
    given = given.removeprefix("refresh-").removeprefix("short-")
    return JSONResponse({"access_token": f"tok-{given}", "token_type": "Bearer", "refresh_token": f"refresh-{given}",
                         "expires_in": -100 if expired else 3600})


@server.custom_route("/seen", methods=["GET", "DELETE"])
async def seen(request):
    from starlette.responses import JSONResponse

    answer = list(SEEN)
    if request.method == "DELETE":
        SEEN.clear()
    return JSONResponse(answer)


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
    elif sys.argv[1] == "sse":
        server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        import uvicorn

        uvicorn.run(recording(server.streamable_http_app(host="127.0.0.1")), host="127.0.0.1", port=int(sys.argv[2]),
                    log_level="warning")
