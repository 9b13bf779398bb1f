"""`chronicle demo`: a real agent conversation recorded in the store.

A Runner drives a concierge ``LlmAgent`` through three turns. Its model is a ``ScriptedLlm``
(no network, the same run every time) unless a Gemini model is named and GOOGLE_API_KEY is
set. The agent calls a tool that writes session state, ``user:`` state (shared by the user's
sessions) and ``temp:`` state (never stored), and saves an artifact through its ToolContext;
the session is then added to the user's memory. Everything lands in the store's log, where
``chronicle history``, ``state-at``, ``rewind`` and the rest can look at it.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from google.genai import types

from domain.events import Event
from runtime.agents import LlmAgent
from runtime.artifacts import LogArtifactService
from runtime.memory import LogMemoryService
from runtime.models import ScriptedLlm
from runtime.runner import Runner
from runtime.sessions import LogSessionService
from runtime.stores import Store
from runtime.tools.tool_context import ToolContext

MESSAGES = [
    "Book me a table for two tonight at 19:30.",
    "Make it three people, please.",
    "What is my booking?",
]

INSTRUCTION = (
    "You are the concierge of the Chronicle bistro, talking to {user:name?}. Book tables with the "
    "book_table tool and answer questions about the booking in state: {booking?}."
)


async def book_table(people: int, time: str, tool_context: ToolContext) -> dict[str, Any]:
    """Books a table at the bistro for `people` guests at `time` (HH:MM, today)."""
    booking = {"people": people, "time": time}
    previous = tool_context.state.get("booking")
    tool_context.state["booking"] = booking
    tool_context.state["user:bookings_made"] = int(tool_context.state.get("user:bookings_made") or 0) + 1
    tool_context.state["temp:previous_booking"] = previous  # seen by this invocation only, never stored
    note = f"Chronicle bistro\nTable for {people} at {time}\n"
    version = await tool_context.save_artifact(
        "booking.txt", types.Part.from_bytes(data=note.encode(), mime_type="text/plain")
    )
    return {"status": "confirmed", "booking": booking, "confirmation": f"booking.txt v{version}",
            "changed_from": previous}


def scripted_model() -> ScriptedLlm:
    return ScriptedLlm(
        [
            ScriptedLlm.call("book_table", people=2, time="19:30"),
            "Done: a table for two tonight at 19:30. The confirmation is saved as booking.txt.",
            ScriptedLlm.call("book_table", people=3, time="19:30"),
            "Updated: your table is now for three people at 19:30.",
            "You have a table for three tonight at 19:30 at the Chronicle bistro.",
        ]
    )


def model_for(name: Optional[str]) -> Any:
    """The scripted model, or the named Gemini model (GOOGLE_API_KEY or GEMINI_API_KEY must be set)."""
    if not name or name == "scripted":
        return scripted_model()
    if not (os.environ.get("GOOGLE_API_KEY") or os.environ.get("GEMINI_API_KEY")):
        from domain.errors import InvalidArgumentError

        raise InvalidArgumentError(
            f"Model {name!r} needs GOOGLE_API_KEY (or GEMINI_API_KEY) in the environment; "
            "without one, leave --model out to use the scripted model."
        )
    return name


def demo_agent(model: Optional[str] = None) -> LlmAgent:
    """The demo's concierge, with a fresh scripted model (or the named Gemini model)."""
    return LlmAgent(name="concierge", model=model_for(model), instruction=INSTRUCTION, tools=[book_table])


@dataclass
class DemoRun:
    app_name: str
    user_id: str
    session_id: str
    events: list[Event] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    artifacts: list[str] = field(default_factory=list)


async def run_demo(
    store: Store,
    *,
    app_name: str = "demo",
    user_id: str = "ann",
    session_id: Optional[str] = None,
    model: Optional[str] = None,
    on_event: Callable[[Event], None] = lambda e: None,
) -> DemoRun:
    """Runs the conversation on ``store``; ``on_event`` sees each event as it is committed."""
    sessions = LogSessionService(store)
    artifacts = LogArtifactService(store)
    memory = LogMemoryService(store)
    agent = demo_agent(model)
    runner = Runner(
        app_name=app_name, agent=agent, session_service=sessions,
        artifact_service=artifacts, memory_service=memory,
    )
    session_id = session_id or f"demo-{uuid.uuid4().hex[:6]}"
    await sessions.create_session(
        app_name=app_name, user_id=user_id, session_id=session_id, state={"user:name": "Ann", "channel": "web"}
    )
    run = DemoRun(app_name, user_id, session_id)
    try:
        for text in MESSAGES:
            message = types.Content(role="user", parts=[types.Part(text=text)])
            async for event in runner.run_async(
                user_id=user_id, session_id=session_id, new_message=message, yield_user_message=True
            ):
                if not event.partial:
                    run.events.append(event)
                    on_event(event)
        session = await sessions.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
        assert session is not None
        await memory.add_session_to_memory(session)
        run.state = dict(session.state)
        run.artifacts = await artifacts.list_artifact_keys(app_name=app_name, user_id=user_id, session_id=session_id)
    finally:
        await runner.close()
        await artifacts.close()
    return run
