"""The web viewer at /ui: static HTML, CSS and JS (runtime/server/ui), no build step, no CDN.

The files hold no data, so they are served without a token; the page asks for one when the
server has authentication, and sends it as `Authorization: Bearer` on every API call it makes
(the same routes, and the same permission checks, as any other client)."""

from __future__ import annotations

from pathlib import Path

from starlette.responses import RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

UI_DIR = Path(__file__).resolve().parent / "ui"
PREFIX = "/ui"


def is_public(path: str) -> bool:
    """The viewer's own files: anyone may load them (they are the same for everyone)."""
    return path == PREFIX or path.startswith(PREFIX + "/")


HEADERS = {
    # Only the viewer's own files run, style and connect: no inline script, no remote origin (the
    # charts and graphs are SVG built in the page; previews are blob:/data: URLs made from bytes
    # the API returned). No page may frame it, and no address leaks to another site.
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
                               "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


class SecureHeaders:
    """Adds `HEADERS` to every answer of the app it wraps."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], *((k.lower().encode(), v.encode()) for k, v in HEADERS.items())]
            await send(message)

        await self.app(scope, receive, with_headers)


async def _to_index(scope: Scope, receive: Receive, send: Send) -> None:
    await RedirectResponse(PREFIX + "/", status_code=307)(scope, receive, send)


ROUTES = [
    Route(PREFIX, SecureHeaders(_to_index), methods=["GET"]),
    Mount(PREFIX, app=SecureHeaders(StaticFiles(directory=UI_DIR, html=True)), name="ui"),
]
