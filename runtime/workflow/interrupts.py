"""Human input from a node: a node yields a RequestInput; the workflow records an `adk_request_input`
call (long-running, so a resumable invocation pauses on it), and the node waits. The client answers
with a FunctionResponse of that id; the resumed invocation reads the answer from the log.

The seam: `RequestInput` here is a stand-in with ADK's fields; the human-in-the-loop work defines
`runtime.events.request_input.RequestInput` and the pause/answer mechanism. `is_request_input` is
duck-typed so either class works; once that lands, this module keeps only the node side.
"""

from __future__ import annotations

import uuid
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field

from domain.events import Event

REQUEST_INPUT = "adk_request_input"


class RequestInput(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    interrupt_id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    payload: Optional[Any] = None
    message: Optional[str] = None
    response_schema: Optional[Any] = None


def is_request_input(item: Any) -> bool:
    return type(item).__name__ == "RequestInput" and hasattr(item, "interrupt_id")


def request_event(item: Any) -> Event:
    """The long-running `adk_request_input` call that asks the client for input."""
    args = {"interruptId": item.interrupt_id, "payload": item.payload, "message": item.message}
    call = types.FunctionCall(id=item.interrupt_id, name=REQUEST_INPUT, args=args)
    return Event(
        content=types.Content(role="model", parts=[types.Part(function_call=call)]),
        long_running_tool_ids={item.interrupt_id},
    )


def answers(events: list[Event]) -> dict[str, Any]:
    """The client's answers (interrupt id -> response) in an invocation's events."""
    found: dict[str, Any] = {}
    for event in events:
        if event.author != "user":
            continue
        for response in event.get_function_responses():
            if response.name == REQUEST_INPUT and response.id:
                found[response.id] = response.response
    return found
