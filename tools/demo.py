"""`chronicle demo`: a short conversation recorded in the log, then its timeline and state."""

from __future__ import annotations

import asyncio
import uuid

from google.genai import types

from domain import Event, EventActions
from runtime.sessions import session_service_from_url


async def _demo(url: str) -> None:
    service = session_service_from_url(url)
    session = await service.create_session(
        app_name="demo", user_id="ann", session_id=f"demo-{uuid.uuid4().hex[:6]}", state={"user:name": "Ann"}
    )
    turns = [
        ("user", "Book me a table for two tonight.", {}),
        ("concierge", "Done: a table for two at 19:30.", {"booking": {"people": 2, "time": "19:30"}}),
        ("user", "Make it three people.", {}),
        ("concierge", "Updated: three people at 19:30.", {"booking": {"people": 3, "time": "19:30"}, "user:visits": 1}),
    ]
    for i, (author, text, delta) in enumerate(turns):
        await service.append_event(
            session,
            Event(
                author=author,
                invocation_id=f"e-{i // 2}",
                content=types.Content(role="user" if author == "user" else "model", parts=[types.Part(text=text)]),
                actions=EventActions(state_delta=delta),
            ),
        )
    loaded = await service.get_session(app_name="demo", user_id="ann", session_id=session.id)
    print(f"session {loaded.id} in {url}")
    for event in loaded.events:
        changes = ", ".join(f"{k}={v}" for k, v in event.actions.state_delta.items())
        print(f"  [{event.invocation_id}] {event.author:>10}: {event.text()}" + (f"   (state: {changes})" if changes else ""))
    print(f"state: {loaded.state}")
    await service.close()


def run_demo(url: str) -> None:
    asyncio.run(_demo(url))
