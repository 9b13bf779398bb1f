"""Turning a conversation's events into eval invocations (one per turn), as google-adk 2.13 does, and
running an eval case's turns through an agent."""

from __future__ import annotations

import time
import uuid
from typing import Any, Iterable, Optional

from google.genai.types import Content

from domain.errors import AlreadyExistsError

from .eval_case import EvalCase, Invocation, InvocationEvent, InvocationEvents


def convert_events_to_eval_invocations(
    events: Iterable[Any], durations: Optional[dict[str, float]] = None,
) -> list[Invocation]:
    """One Invocation per invocation id: the user's content, the events that carry a call, a result, text or
    grounding, and the final response (the last final event, preferring one with text)."""
    by_invocation: dict[str, list[Any]] = {}
    for event in events:
        by_invocation.setdefault(event.invocation_id, []).append(event)
    return [_invocation(iid, turn, (durations or {}).get(iid)) for iid, turn in by_invocation.items()]


def _invocation(invocation_id: str, events: list[Any], duration: Optional[float]) -> Invocation:
    user_content, when = Content(parts=[]), 0.0
    final, final_event, kept = None, None, []
    for event in events:
        if (event.author or "agent").lower() == "user":
            if event.content is not None:
                user_content, when = event.content, event.timestamp
            continue
        parts = event.content.parts if event.content else None
        if parts:
            if event.is_final_response():
                final_has_text = final is not None and any(p.text for p in final.parts or [])
                if not final_has_text or any(p.text for p in parts):
                    final, final_event = event.content, event
            if event.grounding_metadata is not None or any(
                    p.function_call or p.function_response or p.text or p.inline_data for p in parts):
                kept.append(event)
        elif event.grounding_metadata is not None:
            kept.append(event)
    steps = [
        InvocationEvent(
            author=e.author,
            # the final answer's text is on final_response already; its calls stay, for the trajectory
            content=e.content if e is not final_event or e.get_function_calls() else None,
            grounding_metadata=e.grounding_metadata, usage_metadata=e.usage_metadata,
            model_version=e.model_version)
        for e in kept
    ]
    return Invocation(invocation_id=invocation_id, user_content=user_content, final_response=final,
                      intermediate_data=InvocationEvents(invocation_events=steps), creation_timestamp=when,
                      duration=duration)


async def run_conversation(runner: Any, eval_case: EvalCase, *, session_id: Optional[str] = None,
                           simulator: Any = None) -> tuple[str, list[Invocation]]:
    """Plays the case's user in a new session (or the case's pinned one): its recorded messages in order,
    or, for a conversation scenario, what `simulator` says next after each turn. Returns the session id
    and the turns as the agent took them."""
    from runtime.events.event import Event

    from .simulation.user_simulator import Status

    if simulator is None:
        from .simulation.user_simulator_provider import UserSimulatorProvider

        simulator = UserSimulatorProvider().provide(eval_case)
    start = eval_case.session_input
    user_id = start.user_id if start else "test_user_id"
    app_name = runner.app_name
    sid = (start.session_id if start else None) or session_id or str(uuid.uuid4())
    service = runner.session_service
    try:  # a new session, the common case: created without asking first
        await service.create_session(app_name=app_name, user_id=user_id, session_id=sid,
                                     state=dict(start.state) if start else {})
    except AlreadyExistsError:  # the case's pinned session goes on; a deleted one's id cannot be taken again
        if await service.get_session(app_name=app_name, user_id=user_id, session_id=sid) is None:
            raise
    events, durations = [], {}
    try:
        while True:
            # the simulator reads a copy: the conversation so far, the user's own messages included
            following = await simulator.get_next_user_message(list(events))
            if following.status != Status.SUCCESS:
                break
            message = following.user_message
            began, invocation_id = time.monotonic(), None
            async for event in runner.run_async(user_id=user_id, session_id=sid, new_message=message):
                if invocation_id is None:  # the Runner does not yield the user's own event: what was sent
                    invocation_id = event.invocation_id
                    events.append(Event(author="user", content=message, invocation_id=invocation_id))
                events.append(event)
            if invocation_id is not None:
                durations[invocation_id] = round(time.monotonic() - began, 3)
    finally:
        # The case is over: kept by the Runner, its session would only add to every collector pass.
        runner.forget_session(user_id, sid)
    return sid, convert_events_to_eval_invocations(events, durations)
