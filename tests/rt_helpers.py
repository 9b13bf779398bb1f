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


async def send(runner: Runner, text: str, *, session_id: str = SESSION, **kwargs: Any) -> list[Event]:
    return [
        e
        async for e in runner.run_async(user_id=USER, session_id=session_id, new_message=user_msg(text), **kwargs)
    ]


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
