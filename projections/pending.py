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

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Sequence

from domain.rewind_ranges import active_ranges, is_hidden, live_events
from projections.log_event import RECORDED, REWOUND, LogEvent

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
            view.requests[call.id] = _request(view.call_names, call.id, call.name or "", dict(call.args or {}),
                                              event.invocation_id, event.author, event.timestamp, event.branch)
    return view


def open_requests(events: Sequence[Event]) -> dict[str, PendingRequest]:
    """The requests still waiting for an answer, by call id, in the order they were made: folded over
    the events no rewind hides (``live_events``, the rule's one home; live events pass unchanged)."""
    view = PendingView()
    for event in live_events(events):
        fold_pending(view, event)
    return view.requests


# -- the same rule, followed along a stored log (a read model: runtime/read_models/sessions) --------
#
# A session's view keeps only what the rule needs, so reading it costs the requests the session
# made, not its history: each request made and each answer to one (by version), the rewinds
# (``domain.rewind_ranges`` decides what they hide, undone ones included), and the names of the
# current invocation's calls (a credential request names the call it is about, made in the same
# invocation: a rewind hides whole invocations, so that call is live whenever the request is).


def new_pending_log() -> dict[str, Any]:
    return {"log": [], "rewinds": [], "invocation": None, "calls": {}}


def fold_pending_log(view: dict[str, Any], event: LogEvent) -> dict[str, Any]:
    """One stored event of a session folded into its pending log (a JSON dict, updated in place)."""
    if event.kind == REWOUND:
        view["rewinds"].append([event.version, event.meta.get("start_version", event.version)])
        return view
    if event.kind != RECORDED or not event.data:
        return view
    data = event.data
    if event.author == "user" or event.error_code == INVOCATION_ABORTED:
        ids = [r.get("id") for r in event.function_responses()]
        made = {entry[2]["call_id"] for entry in view["log"] if entry[1] == "open"} if ids else ()
        answered = [i for i in ids if i in made]
        if answered:
            view["log"].append([event.version, "close", answered])
        return view
    calls = event.function_calls()
    if not calls:
        return view
    if view["invocation"] != event.invocation_id:
        view["invocation"], view["calls"] = event.invocation_id, {}
    long_running = set(data.get("long_running_tool_ids") or ())
    for call in calls:
        call_id, name = call.get("id"), call.get("name") or ""
        if call_id:
            view["calls"][call_id] = name
        if call_id and call_id in long_running:
            request = _request(view["calls"], call_id, name, dict(call.get("args") or {}),
                               event.invocation_id, event.author, event.timestamp, event.branch)
            view["log"].append([event.version, "open", asdict(request)])
    return view


def pending_of_log(view: dict[str, Any]) -> dict[str, PendingRequest]:
    """The open requests a pending log holds, by call id, in the order they were made: the requests
    and answers no rewind in effect hides, replayed."""
    hidden = active_ranges(view["rewinds"])
    found: dict[str, PendingRequest] = {}
    for version, op, value in view["log"]:
        if is_hidden(version, hidden):
            continue
        if op == "open":
            found[value["call_id"]] = PendingRequest(**value)
        else:
            for call_id in value:
                found.pop(call_id, None)
    return found


def _request(call_names: dict[str, str], call_id: str, name: str, args: dict[str, Any], invocation_id: str,
             agent: str, since: float, branch: Optional[str]) -> PendingRequest:
    kind = KINDS.get(name, "long_running")
    tool, original_id, asks = name, None, ""
    if kind == "confirmation":
        original = args.get("originalFunctionCall") or {}
        tool, original_id = original.get("name", ""), original.get("id")
        asks = (args.get("toolConfirmation") or {}).get("hint", "")
    elif kind == "credential":
        original_id = args.get("functionCallId")
        tool = call_names.get(original_id or "", "")
        asks = "credential " + str((args.get("authConfig") or {}).get("credentialKey", ""))
    elif kind == "input":
        asks = str(args.get("message") or "")
    return PendingRequest(
        call_id=call_id,
        kind=kind,
        name=name,
        invocation_id=invocation_id,
        agent=agent,
        tool=tool,
        original_call_id=original_id,
        asks=asks,
        args=args,
        since=since,
        branch=branch,
    )
