"""Sealing a cancelled invocation (ADK 2.13's `events/_abort_events.py` shapes).

Every function call the invocation made without a result, long-running ones and requests to a
person included, gets a synthetic error response (`error_code` INVOCATION_ABORTED), authored by
the agent that made the call: the next model context pairs every call with a result, the open
requests close, and a resume never runs the cancelled call. With nothing left dangling, one
content-less abort event records the cancellation. Pure: it builds events, the caller appends."""

from __future__ import annotations

from typing import Optional, Sequence

from google.genai import types

from domain.events import Event
from projections.pending import INVOCATION_ABORTED

ABORT_MESSAGE = "Invocation was aborted by client."


def is_abort_event(event: Event) -> bool:
    return event.error_code == INVOCATION_ABORTED


def was_cancelled(events: Sequence[Event], invocation_id: str) -> bool:
    return any(e.invocation_id == invocation_id and is_abort_event(e) for e in events)


def build_abort_events(
    events: Sequence[Event], *, invocation_id: str, root_agent_name: str, reason: str = ""
) -> list[Event]:
    mine = [e for e in events if e.invocation_id == invocation_id]
    answered = {r.id for e in events for r in e.get_function_responses() if r.id}
    message = f"{ABORT_MESSAGE} {reason}".strip() if reason else ABORT_MESSAGE
    groups: dict[tuple[str, Optional[str]], list[types.FunctionCall]] = {}
    for event in mine:
        for call in event.get_function_calls():
            if call.id and call.id not in answered:
                groups.setdefault((event.author, event.branch), []).append(call)
    if not groups:
        return [Event(invocation_id=invocation_id, author=root_agent_name, error_code=INVOCATION_ABORTED,
                      error_message=message)]
    return [
        Event(
            invocation_id=invocation_id,
            author=author,
            branch=branch,
            content=types.Content(
                role="user",
                parts=[
                    types.Part(function_response=types.FunctionResponse(id=c.id, name=c.name, response={"error": message}))
                    for c in calls
                ],
            ),
            error_code=INVOCATION_ABORTED,
            error_message=message,
        )
        for (author, branch), calls in groups.items()
    ]
