"""projections.pending: which requests are open, as a fold, over random histories."""

from __future__ import annotations

from google.genai import types
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.events import Event, EventActions
from projections.pending import fold_pending, open_requests, PendingView

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


@settings(max_examples=200, deadline=None)
@given(steps)
def test_open_requests_are_the_asked_minus_the_closed(script):
    events, expected, order = [], {}, []
    for kind, inv_n, call_n, name in script:
        invocation, call_id = f"i{inv_n}", f"c{inv_n}-{call_n}"
        if kind == "rewind" and invocation not in order:
            continue  # a rewind names an invocation the session has (else nothing is written)
        if invocation not in order:
            order.append(invocation)
        if kind == "ask":
            events.append(ask(invocation, call_id, name))
            expected[call_id] = invocation
        elif kind == "answer":
            events.append(answer(invocation, call_id))
            expected.pop(call_id, None)
        elif kind == "agent_result":  # an agent's own result does not answer a person's request
            events.append(answer(invocation, call_id, author="agent"))
        elif kind == "cancel":
            events.append(answer(invocation, call_id, author="agent", aborted=True))
            expected.pop(call_id, None)
        else:
            marker_inv = f"r{len(events)}"
            events.append(Event(invocation_id=marker_inv, author="user",
                                actions=EventActions(rewind_before_invocation_id=invocation)))
            order.append(marker_inv)
            cut = order.index(invocation)
            expected = {k: v for k, v in expected.items() if order.index(v) < cut}
    assert set(open_requests(events)) == set(expected)
    # folding one event at a time is the same as folding them all
    view = PendingView()
    for event in events:
        view = fold_pending(view, event)
    assert set(view.requests) == set(expected)
