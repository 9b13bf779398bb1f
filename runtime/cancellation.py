"""Cancelling an invocation: in process through an `abort_signal`, or from anywhere by appending
the events that seal it (runtime.events.abort_events). A process running a sealed invocation
meets a StaleSessionError at its next append, sees the seal in the log, and stops."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncGenerator, Optional

from domain.errors import InvocationNotFoundError, SessionNotFoundError, StaleSessionError
from domain.events import Event
from domain.session import Session
from runtime.events.abort_events import build_abort_events, was_cancelled
from runtime.resume import invocation_start

_SEAL_ATTEMPTS = 8


class Aborted(Exception):
    """The run's abort_signal was set."""


async def next_unless_aborted(agen: AsyncGenerator[Event, None], abort_signal: Optional[asyncio.Event]) -> Event:
    """The agent's next event, or Aborted as soon as `abort_signal` is set (the step is cancelled)."""
    if abort_signal is None:
        return await agen.__anext__()
    if abort_signal.is_set():
        raise Aborted
    step = asyncio.ensure_future(agen.__anext__())
    aborted = asyncio.ensure_future(abort_signal.wait())
    await asyncio.wait({step, aborted}, return_when=asyncio.FIRST_COMPLETED)
    if step.done():
        aborted.cancel()
        return step.result()
    step.cancel()
    await asyncio.gather(step, return_exceptions=True)
    raise Aborted


async def cancel_invocation(
    sessions: Any, app_name: str, root_agent_name: str, *, user_id: str, session_id: str, invocation_id: str,
    reason: str = "",
) -> list[Event]:
    """Appends the events that seal the invocation; [] if it was sealed already."""
    for _ in range(_SEAL_ATTEMPTS):
        session = await sessions.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
        if session is None:
            raise SessionNotFoundError(app_name, user_id, session_id)
        if invocation_start(session.live_events(), invocation_id) is None:
            raise InvocationNotFoundError(session_id, invocation_id)
        try:
            return await seal(sessions, session, invocation_id, root_agent_name, reason)
        except StaleSessionError:
            continue  # the invocation wrote meanwhile: seal what it has now
    raise StaleSessionError(session_id, session.version or 0, -1)


async def seal(sessions: Any, session: Session, invocation_id: str, root_agent_name: str, reason: str) -> list[Event]:
    sealing = build_abort_events(session.live_events(), invocation_id=invocation_id, root_agent_name=root_agent_name, reason=reason)
    if was_cancelled(session.live_events(), invocation_id) and not sealing[0].content:
        return []
    for event in sealing:
        await sessions.append_event(session, event)
    return sealing


async def cancelled_elsewhere(sessions: Any, ctx: Any) -> bool:
    """Whether the log says ctx's invocation was cancelled (read fresh, past the caller's copy)."""
    fresh = await sessions.get_session(app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id)
    return fresh is not None and was_cancelled(fresh.live_events(), ctx.invocation_id)
