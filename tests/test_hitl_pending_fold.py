"""projections.pending: which requests are open, as a fold, over random histories."""

from __future__ import annotations

from google.genai import types
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.events import Event, EventActions
from domain.rewind_ranges import live_events
from projections.log_event import REWOUND, LogEvent, recorded
from projections.pending import PendingView, fold_pending, fold_pending_log, new_pending_log, open_requests, pending_of_log

NAMES = ["adk_request_confirmation", "adk_request_credential", "adk_request_input", "lookup"]


def ask(invocation: str, call_id: str, name: str) -> Event:
    call = types.FunctionCall(id=call_id, name=name, args={})
    return Event(invocation_id=invocation, author="agent", content=types.Content(role="model", parts=[
        types.Part(function_call=call)]), long_running_tool_ids={call_id})


def answer(invocation: str, call_id: str, *, author: str = "user", aborted: bool = False) -> Event:
    part = types.Part(function_response=types.FunctionResponse(id=call_id, name="x", response={}))
    return Event(invocation_id=invocation, author=author, content=types.Content(role="user", parts=[part]),
                 error_code="INVOCATION_ABORTED" if aborted else None)


steps = st.lists(
    st.tuples(st.sampled_from(["ask", "answer", "agent_result", "cancel", "rewind"]),
              st.integers(0, 3), st.integers(0, 5), st.sampled_from(NAMES)),
    max_size=30,
)


def expected_open(log: list[tuple[str, str, str, str]]) -> set[str]:
    """The oracle, over (kind, invocation, rewind target, call id) steps: a rewind at step v hides the
    steps from its target's first one to v - 1 unless a rewind in effect after it hides it (then it
    hides nothing: undoing a rewind brings its range back); the asked minus the closed, of what shows."""
    first: dict[str, int] = {}
    rewinds = []
    for at, (kind, invocation, target, _) in enumerate(log):
        if kind == "rewind":
            rewinds.append((at, first[target]))
        first.setdefault(invocation, at)
    hidden: set[int] = set()
    for at, start in reversed(rewinds):
        if at not in hidden:
            hidden |= set(range(start, at))
    asked: set[str] = set()
    for at, (kind, _, _, call_id) in enumerate(log):
        if at in hidden or kind == "rewind":
            continue
        if kind == "ask":
            asked.add(call_id)
        elif kind in ("answer", "cancel"):
            asked.discard(call_id)
    return asked


@settings(max_examples=200, deadline=None)
@given(steps)
def test_open_requests_are_the_asked_minus_the_closed(script):
    events, log, order = [], [], []
    for kind, inv_n, call_n, name in script:
        invocation, call_id = f"i{inv_n}", f"c{inv_n}-{call_n}"
        if kind == "rewind":
            if not order:
                continue  # a rewind names an invocation the session has (else nothing is written)
            target = order[(inv_n * 7 + call_n) % len(order)]  # any earlier one: a rewind marker too (an undo)
            invocation = f"r{len(events)}"
            events.append(Event(invocation_id=invocation, author="user",
                                actions=EventActions(rewind_before_invocation_id=target)))
            log.append((kind, invocation, target, ""))
            order.append(invocation)
            continue
        if invocation not in order:
            order.append(invocation)
        log.append((kind, invocation, "", call_id))
        if kind == "ask":
            events.append(ask(invocation, call_id, name))
        elif kind == "answer":
            events.append(answer(invocation, call_id))
        elif kind == "agent_result":  # an agent's own result does not answer a person's request
            events.append(answer(invocation, call_id, author="agent"))
        else:
            events.append(answer(invocation, call_id, author="agent", aborted=True))
    assert set(open_requests(events)) == expected_open(log)
    # folding the live events one at a time is the same as folding them all
    view = PendingView()
    for event in live_events(events):
        view = fold_pending(view, event)
    assert set(view.requests) == expected_open(log)
    # the fold a read model follows along the stored log (rewinds as markers with the first version
    # they hide) opens the same requests, made the same way
    followed = pending_of_log(_fold_log(events))
    assert followed == open_requests(events)


def _fold_log(events: list[Event]) -> dict:
    """The stored log's fold over the events (version 1 is the genesis)."""
    view, first = new_pending_log(), {}
    for version, event in enumerate(events, start=2):
        target = event.actions.rewind_before_invocation_id
        if target:
            log_event = LogEvent(REWOUND, "app", "u", "s", version, event.timestamp, event.to_json_dict(),
                                 meta={"start_version": first[target]})
        else:
            log_event = recorded("app", "u", "s", version, event)
        first.setdefault(event.invocation_id, version)
        view = fold_pending_log(view, log_event)
    return view


def test_undoing_a_rewind_opens_its_requests_again():
    asked = ask("i0", "c0", "adk_request_input")
    rewound = Event(invocation_id="r1", author="user", actions=EventActions(rewind_before_invocation_id="i0"))
    undone = Event(invocation_id="r2", author="user", actions=EventActions(rewind_before_invocation_id="r1"))
    assert list(open_requests([asked])) == ["c0"]
    assert open_requests([asked, rewound]) == {}
    assert list(open_requests([asked, rewound, undone])) == ["c0"]
