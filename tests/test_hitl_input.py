"""Input requests: the model asks the user through `request_input`; the answer comes later."""

from __future__ import annotations

import pytest

from domain.errors import InvalidAnswerError
from projections.pending import open_requests
from runtime import ScriptedLlm
from runtime.events.request_input import RequestInput, request_input_event
from runtime.models import LlmRequest
from runtime.tools.request_input_tool import request_input
from tests.hitl_helpers import APP, SESSION, USER, make_runner, reply, request_of, run, text, texts


def asker(request: LlmRequest):
    last = request.contents[-1].parts[-1]
    if last.function_response is not None:
        return f"booking for {last.function_response.response['answer']}"
    return ScriptedLlm.call("adk_request_input", message="Which day?", response_schema={"type": "string"})


@pytest.mark.parametrize("resumable", [False, True])
async def test_an_input_request_round_trip(sessions, resumable):
    runner = make_runner(sessions, [request_input], model=ScriptedLlm([asker], cycle=True), resumable=resumable)
    events = await run(runner, text("book a table"))
    call = request_of(events, "adk_request_input")
    assert call.args == {"message": "Which day?", "response_schema": {"type": "string"}}
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    [pending] = open_requests(session.events).values()
    assert pending.kind == "input" and pending.asks == "Which day?"
    answered = await run(runner, reply(call.id, "adk_request_input", {"answer": "Friday"}))
    assert texts(answered) == ["booking for Friday"]
    with pytest.raises(InvalidAnswerError):
        await run(runner, reply(call.id, "adk_request_input", {"answer": "Monday"}))


def test_a_request_input_event_has_adk_wire_shape():
    event = request_input_event(
        RequestInput(interrupt_id="i1", message="Approve?", response_schema={"type": "boolean"}, payload={"n": 1}),
        invocation_id="inv", author="node",
    )
    [call] = event.get_function_calls()
    assert call.name == "adk_request_input" and call.id == "i1" and event.long_running_tool_ids == {"i1"}
    assert call.args == {"interruptId": "i1", "payload": {"n": 1}, "message": "Approve?", "response_schema": {"type": "boolean"}}
    assert open_requests([event])["i1"].asks == "Approve?"
