"""Pending requests are facts in the log: compaction keeps them, a rewind cancels them, any
runner (any process) answers them, and `chronicle pending` lists them."""

from __future__ import annotations

from typing import Any

import pytest

from domain.errors import InvalidAnswerError
from projections.pending import open_requests
from runtime import App, EventsCompactionConfig, FunctionTool, LlmAgent, Runner, ScriptedLlm
from runtime.models import LlmRequest
from tests.hitl_helpers import APP, SESSION, USER, brain, confirm, make_runner, request_of, run, text, texts


async def stored(sessions):
    return await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)


def reimburse_tool(paid: list) -> FunctionTool:
    def reimburse(amount: int) -> dict:
        """Pays an amount back."""
        paid.append(amount)
        return {"paid": amount}

    return FunctionTool(reimburse, require_confirmation=True)


def summarise(request: LlmRequest) -> Any:
    return "the user asked for money"


async def test_compaction_never_drops_a_pending_request(sessions):
    paid: list = []
    model = brain("reimburse", amount=50)
    agent = LlmAgent(name="clerk", model=model, tools=[reimburse_tool(paid)])
    config = EventsCompactionConfig(compaction_interval=1, overlap_size=0, summarizer=ScriptedLlm([summarise], cycle=True))
    runner = Runner(app=App(name=APP, root_agent=agent, events_compaction_config=config), session_service=sessions)
    first = request_of(await run(runner, text("pay me 50")))
    request = request_of(await run(runner, text("pay me 50, please")))
    session = await stored(sessions)
    covered = {i for e in session.events if e.actions.compaction for i in e.actions.compaction.event_ids}
    assert covered  # something was summarised ...
    asking = [e for e in session.events if any(c.id in (first.id, request.id) for c in e.get_function_calls())]
    assert len(asking) == 2 and not {e.id for e in asking} & covered  # ... but not the open requests
    assert list(open_requests(session.events)) == [first.id, request.id]
    assert texts(await run(runner, confirm(request.id, True))) == ['result: {"paid": 50}']
    assert paid == [50]


@pytest.mark.parametrize("resumable", [False, True])
async def test_a_rewind_to_before_a_pending_request_cancels_it(sessions, resumable):
    paid: list = []
    runner = make_runner(sessions, [reimburse_tool(paid)], resumable=resumable)
    events = await run(runner, text("pay me 50"))
    request = request_of(events)
    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=events[0].invocation_id)
    assert open_requests((await stored(sessions)).events) == {}
    before = len((await stored(sessions)).events)
    with pytest.raises(InvalidAnswerError):
        await run(runner, confirm(request.id, True))
    assert len((await stored(sessions)).events) == before and paid == []


async def test_answering_twice_stores_one_answer(sessions):
    paid: list = []
    runner = make_runner(sessions, [reimburse_tool(paid)])
    request = request_of(await run(runner, text("pay me 50")))
    await run(runner, confirm(request.id, True))
    with pytest.raises(InvalidAnswerError, match="answered already"):
        await run(runner, confirm(request.id, True))
    session = await stored(sessions)
    answers = [r for e in session.events if e.author == "user" for r in e.get_function_responses()]
    assert len(answers) == 1 and paid == [50]
