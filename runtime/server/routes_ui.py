"""The web viewer at /ui: static HTML, CSS and JS (runtime/server/ui), no build step, no CDN.

The files hold no data, so they are served without a token; the page asks for one when the
server has authentication, and sends it as `Authorization: Bearer` on every API call it makes
(the same routes, and the same permission checks, as any other client)."""

from __future__ import annotations

from pathlib import Path

from starlette.responses import RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

UI_DIR = Path(__file__).resolve().parent / "ui"
PREFIX = "/ui"


def is_public(path: str) -> bool:
    """The viewer's own files: anyone may load them (they are the same for everyone)."""
    return path == PREFIX or path.startswith(PREFIX + "/")


async def _to_index(request) -> RedirectResponse:
    return RedirectResponse(PREFIX + "/", status_code=307)


ROUTES = [
    Route(PREFIX, _to_index, methods=["GET"]),
    Mount(PREFIX, app=StaticFiles(directory=UI_DIR, html=True), name="ui"),
]
