"""Which requests to a person are open in a session: a pure fold over its events.

A request is a function call whose id is in its event's `long_running_tool_ids`: a confirmation
(`adk_request_confirmation`), a credential (`adk_request_credential`), an input request
(`adk_request_input`) or any other long-running call. It closes when the user answers it (a
FunctionResponse with its id in a user event), when the invocation is cancelled (a sealing
response with `error_code` INVOCATION_ABORTED), or when a rewind in effect goes back to before it
(`domain.rewind_ranges.live_events`: undoing that rewind opens it again).
Compaction does not touch it: compaction adds a summary event and removes nothing from the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Sequence

from domain.rewind_ranges import live_events

if TYPE_CHECKING:  # folds read JSON; importing the model (and google-genai) is left to callers
    from domain.events import Event

REQUEST_CONFIRMATION = "adk_request_confirmation"
REQUEST_CREDENTIAL = "adk_request_credential"
REQUEST_INPUT = "adk_request_input"
INVOCATION_ABORTED = "INVOCATION_ABORTED"

KINDS = {REQUEST_CONFIRMATION: "confirmation", REQUEST_CREDENTIAL: "credential", REQUEST_INPUT: "input"}


@dataclass(frozen=True)
class PendingRequest:
    call_id: str
    kind: str
    """'confirmation', 'credential', 'input', or 'long_running' (any other long-running call)."""
    name: str
    """The function the client answers (e.g. adk_request_confirmation)."""
    invocation_id: str
    agent: str
    tool: str
    """The tool the request is about (the original call's name; for other calls, the call's name)."""
    original_call_id: Optional[str]
    asks: str
    """What is asked, for a person: the confirmation hint, the credential key, the input message."""
    args: dict[str, Any]
    since: float
    branch: Optional[str]


@dataclass
class PendingView:
    requests: dict[str, PendingRequest] = field(default_factory=dict)
    call_names: dict[str, str] = field(default_factory=dict)
    """Every call's function name, by id (a credential request names only the call's id)."""


def fold_pending(view: PendingView, event: Event) -> PendingView:
    """One live event (rewinds already applied, see ``open_requests``) folded into the view."""
    if event.author == "user" or event.error_code == INVOCATION_ABORTED:
        for response in event.get_function_responses():
            view.requests.pop(response.id or "", None)
        return view
    long_running = event.long_running_tool_ids or set()
    for call in event.get_function_calls():
        if call.id:
            view.call_names[call.id] = call.name or ""
        if call.id and call.id in long_running:
            view.requests[call.id] = _request(view, event, call.id, call.name or "", dict(call.args or {}))
    return view


def open_requests(events: Sequence[Event]) -> dict[str, PendingRequest]:
    """The requests still waiting for an answer, by call id, in the order they were made: folded over
    the events no rewind hides (``live_events``, the rule's one home; live events pass unchanged)."""
    view = PendingView()
    for event in live_events(events):
        fold_pending(view, event)
    return view.requests


def _request(view: PendingView, event: Event, call_id: str, name: str, args: dict[str, Any]) -> PendingRequest:
    kind = KINDS.get(name, "long_running")
    tool, original_id, asks = name, None, ""
    if kind == "confirmation":
        original = args.get("originalFunctionCall") or {}
        tool, original_id = original.get("name", ""), original.get("id")
        asks = (args.get("toolConfirmation") or {}).get("hint", "")
    elif kind == "credential":
        original_id = args.get("functionCallId")
        tool = view.call_names.get(original_id or "", "")
        asks = "credential " + str((args.get("authConfig") or {}).get("credentialKey", ""))
    elif kind == "input":
        asks = str(args.get("message") or "")
    return PendingRequest(
        call_id=call_id,
        kind=kind,
        name=name,
        invocation_id=event.invocation_id,
        agent=event.author,
        tool=tool,
        original_call_id=original_id,
        asks=asks,
        args=args,
        since=event.timestamp,
        branch=event.branch,
    )
