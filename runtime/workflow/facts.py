"""The events that record a node's life (see projections.workflow for what each says)."""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types
from pydantic_core import to_jsonable_python

from domain.events import Event, EventActions, NodeInfo
from domain.log_only import LOG_ONLY_KEY
from projections.workflow import NODE_FACT_KEY
from runtime.invocation_context import InvocationContext


def as_json(value: Any) -> Any:
    """A node's input or output as the log keeps it (and as the next node gets it, so a resumed run
    hands on exactly what a live one did)."""
    return to_jsonable_python(value, serialize_unknown=True)


def recorded(value: Any) -> Any:
    """A node's input as its start fact keeps it (a Content without its unset fields)."""
    if isinstance(value, types.Content):
        return value.model_dump(mode="json", exclude_none=True)
    return as_json(value)


def handed(value: Any) -> Any:
    """A node's input as the node gets it: as the log keeps it, but the user's message (a Content,
    what google-adk 2.13 hands the nodes after START) stays the message."""
    return value if isinstance(value, types.Content) else as_json(value)


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def fact_event(
    ctx: InvocationContext,
    *,
    author: str,
    path: str,
    status: str,
    output: Any = None,
    actions: Optional[EventActions] = None,
    error: Optional[BaseException] = None,
    **details: Any,
) -> Event:
    fact: dict[str, Any] = {"status": status, **details}
    event = Event(
        invocation_id=ctx.invocation_id,
        author=author,
        branch=ctx.branch,
        output=output,
        actions=actions or EventActions(),
        node_info=NodeInfo(path=path),
        custom_metadata={NODE_FACT_KEY: fact},
    )
    if error is not None:  # as ADK's error event: the error's own status, else its class
        fact["error"] = describe(error)
        code = getattr(error, "status", None)
        event.error_code = code if isinstance(code, str) else type(error).__name__
        event.error_message = str(error)
    return event


def hide_if_silent(event: Event) -> Event:
    """Marks a fact event that says nothing an ADK client would see (no output, route, state or
    error: google-adk 2.13 yields no event there) as log-only (domain.log_only)."""
    actions = event.actions
    if (
        event.content is None and event.output is None and event.error_code is None
        and actions.route is None and not actions.state_delta and not actions.artifact_delta
    ):
        event.custom_metadata = {**(event.custom_metadata or {}), LOG_ONLY_KEY: True}
    return event
