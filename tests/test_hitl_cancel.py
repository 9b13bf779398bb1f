"""Cancelling an invocation: in process (abort_signal) and from another runner (cancel_async)."""

from __future__ import annotations

import asyncio

import pytest

from domain.errors import InvalidAnswerError, InvalidArgumentError
from projections.pending import open_requests
from runtime import FunctionTool
from tests.hitl_helpers import APP, SESSION, USER, brain, confirm, make_runner, request_of, run, text

ABORTED = "Invocation was aborted by client."


class Slow:
    """A tool that waits until released (or cancelled)."""

    def __init__(self) -> None:
        self.started, self.release = asyncio.Event(), asyncio.Event()
        self.finished = 0
        self.cancelled = 0

    async def crunch(self, n: int) -> dict:
        """Crunches numbers for a long time."""
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        self.finished += 1
        return {"crunched": n}


async def stored(sessions):
    return await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)


async def test_an_abort_signal_cancels_the_running_tool_and_seals_its_call(sessions):
    slow = Slow()
    model = brain("crunch", n=7)
    runner = make_runner(sessions, [slow.crunch], model=model)
    abort = asyncio.Event()
    task = asyncio.ensure_future(run(runner, text("crunch 7"), abort_signal=abort))
    await slow.started.wait()
    abort.set()
    events = await asyncio.wait_for(task, 10)
    assert slow.cancelled == 1 and slow.finished == 0
    sealed = events[-1]
    assert sealed.error_code == "INVOCATION_ABORTED" and sealed.author == "clerk"
    assert sealed.get_function_responses()[0].response == {"error": ABORTED}
    session = await stored(sessions)
    assert session.events[-1].id == sealed.id
    # the next turn's model context pairs the call with the cancelled result
    slow.release.set()
    await run(runner, text("never mind"))
    contents = model.requests[-1].contents
    call_index = next(i for i, c in enumerate(contents) if c.parts[0].function_call)
    assert contents[call_index].parts[0].function_call.args == {"n": 7}
    assert contents[call_index + 1].parts[0].function_response.response == {"error": ABORTED}


async def test_cancel_async_from_another_runner_stops_the_running_invocation(sessions):
    slow = Slow()
    runner = make_runner(sessions, [slow.crunch], tool="crunch", args={"n": 3})
    task = asyncio.ensure_future(run(runner, text("crunch 3")))
    await slow.started.wait()
    invocation = (await stored(sessions)).events[-1].invocation_id

    other = make_runner(sessions, [slow.crunch], tool="crunch", args={"n": 3})
    sealed = await other.cancel_async(user_id=USER, session_id=SESSION, invocation_id=invocation, reason="by ops")
    assert [e.error_code for e in sealed] == ["INVOCATION_ABORTED"]
    assert sealed[0].get_function_responses()[0].response == {"error": f"{ABORTED} by ops"}
    slow.release.set()  # the tool finishes, but its result meets the cancellation
    events = await asyncio.wait_for(task, 10)
    assert slow.finished == 1
    assert not any(r.response == {"crunched": 3} for e in events for r in e.get_function_responses())
    session = await stored(sessions)
    assert session.events[-1].id == sealed[0].id
    assert not any(r.response == {"crunched": 3} for e in session.events for r in e.get_function_responses())
    # cancelling again adds nothing
    assert await other.cancel_async(user_id=USER, session_id=SESSION, invocation_id=invocation) == []


@pytest.mark.parametrize("resumable", [False, True])
async def test_cancelling_a_paused_invocation_closes_its_requests(sessions, resumable):
    paid: list = []

    def reimburse(amount: int) -> dict:
        """Pays."""
        paid.append(amount)
        return {"paid": amount}

    runner = make_runner(sessions, [FunctionTool(reimburse, require_confirmation=True)], resumable=resumable)
    events = await run(runner, text("pay 50"))
    request = request_of(events)
    assert list(open_requests((await stored(sessions)).events)) == [request.id]
    await runner.cancel_async(user_id=USER, session_id=SESSION, invocation_id=events[0].invocation_id)
    assert open_requests((await stored(sessions)).events) == {}
    with pytest.raises(InvalidAnswerError):
        await run(runner, confirm(request.id, True))
    if resumable:
        with pytest.raises(InvalidArgumentError, match="cancelled"):
            await run(runner, invocation_id=events[0].invocation_id)
    assert paid == []
