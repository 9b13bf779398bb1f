"""`GET /chronicle/sessions?q=…` pages a search as it pages the sessions list: `limit` sessions,
newest update first, and an `X-Next-Cursor` for the next page, which appends meanwhile do not
shift; filters narrow it; a cursor it never gave is a 400. On every store, through the real ASGI
app."""

from __future__ import annotations

import httpx
from google.genai import types

from domain.events import Event
from runtime.server.app import create_app
from runtime.server.config import ServerConfig


def _said(text: str, ts: float) -> Event:
    return Event(invocation_id="i1", author="user", timestamp=ts,
                 content=types.Content(role="user", parts=[types.Part(text=text)]))


async def _pages(client: httpx.AsyncClient, **params) -> list[list[str]]:
    pages, cursor = [], None
    for _ in range(20):
        answer = await client.get("/chronicle/sessions", params={**params, **({"after": cursor} if cursor else {})})
        assert answer.status_code == 200, answer.text
        pages.append([row["session_id"] for row in answer.json()])
        cursor = answer.headers.get("X-Next-Cursor")
        if cursor is None:
            return pages
    raise AssertionError("the pages never end")


async def test_a_search_pages_with_the_sessions_list_s_cursor(store_url, tmp_path):
    (tmp_path / "agents").mkdir()
    app = create_app(ServerConfig(agents_dir=str(tmp_path / "agents"), store_url=store_url))
    async with app.router.lifespan_context(app):
        sessions = app.state.services.sessions

        async def session(user: str, sid: str, text: str, ts: float) -> None:
            created = await sessions.create_session(app_name="shop", user_id=user, session_id=sid)
            await sessions.append_event(created, _said(text, ts))

        for n in range(7):  # s6 newest; s2 and s3 at one time (then by key); s5 holds no fox
            await session(f"u{n % 2}", f"s{n}", "a fox" if n != 5 else "a dog", 100.0 + n - (n == 3))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
            assert await _pages(client, q="FOX", limit=2) == [["s6", "s4"], ["s2", "s3"], ["s1", "s0"]]
            assert await _pages(client, q="fox", limit=100) == [["s6", "s4", "s2", "s3", "s1", "s0"]]
            assert await _pages(client, q="fox", user="u1", limit=1) == [["s3"], ["s1"]]

            first = await client.get("/chronicle/sessions", params={"q": "fox", "limit": 3})
            await session("u0", "s7", "a late fox", 200.0)  # newer: before the first page, not after it
            rest = await client.get("/chronicle/sessions", params={"q": "fox", "limit": 3,
                                                                   "after": first.headers["X-Next-Cursor"]})
            assert [r["session_id"] for r in rest.json()] == ["s3", "s1", "s0"] and rest.json()[0]["match"] == "a fox"
            assert (await _pages(client, q="fox", limit=4))[0] == ["s7", "s6", "s4", "s2"]

            refused = await client.get("/chronicle/sessions", params={"q": "fox", "after": "not-a-cursor"})
            assert refused.status_code == 400 and "cursor" in refused.text
