"""Small helpers for the runtime tests (no fakes: real runners, real services, ScriptedLlm)."""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types

from domain.events import Event
from runtime.agents.base_agent import BaseAgent
from runtime.runner import InMemoryRunner, Runner

APP = "test_app"
USER = "u1"
SESSION = "s1"


def user_msg(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


async def new_runner(agent: BaseAgent, *, state: Optional[dict[str, Any]] = None, **kwargs: Any) -> InMemoryRunner:
    runner = InMemoryRunner(agent=agent, app_name=APP, **kwargs)
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id=SESSION, state=state)
    return runner


async def collect(
    runner: Runner, message: Optional[types.Content] = None, *, user_id: str = USER, session_id: str = SESSION,
    **kwargs: Any,
) -> list[Event]:
    """Every event one run yields (``run_async`` collected). A file with its own user binds it once:
    ``run = functools.partial(collect, user_id=USER)``."""
    return [e async for e in runner.run_async(user_id=user_id, session_id=session_id, new_message=message, **kwargs)]


async def send(runner: Runner, text: str, *, session_id: str = SESSION, **kwargs: Any) -> list[Event]:
    return await collect(runner, user_msg(text), session_id=session_id, **kwargs)


async def answered(runner: Runner, text: str, *, user_id: str = USER, session_id: str = SESSION) -> tuple[str, list[str]]:
    """Sends a message; returns the invocation id and the texts of the answers."""
    events = await collect(runner, user_msg(text), user_id=user_id, session_id=session_id)
    return events[0].invocation_id, texts(events)


async def stored(runner: Runner, session_id: str = SESSION):
    return await runner.session_service.get_session(app_name=runner.app_name, user_id=USER, session_id=session_id)


def texts(events: list[Event]) -> list[str]:
    return [e.text() for e in events if e.text()]


def content_texts(contents: list[types.Content]) -> list[str]:
    """Every part of a request's contents as one string each (text, or call/result summaries)."""
    out = []
    for content in contents:
        for part in content.parts or []:
            if part.text is not None:
                out.append(f"{content.role}:{part.text}")
            elif part.function_call:
                out.append(f"{content.role}:call:{part.function_call.name}")
            elif part.function_response:
                out.append(f"{content.role}:result:{part.function_response.name}")
    return out
