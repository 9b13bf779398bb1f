"""Confirmation requests in google-adk 2.13's order (the request before the placeholder result,
unless a settled sibling result comes first), with the pause still crash-safe: a process that dies
between the two events leaves a call that waits for its answer, never one asked about twice."""

from __future__ import annotations

from functools import partial

import pytest
from google.genai import types

from projections.pending import open_requests
from runtime import App, BasePlugin, FunctionTool, LlmAgent, ResumabilityConfig, Runner, ScriptedLlm
from runtime.sessions import session_service_from_url
from tests.rt_helpers import collect
from tests.rt_helpers import user_msg as text

APP, USER, SESSION = "order", "kim", "s1"


class Crash(BaseException):
    """The process dying: nothing after it runs, nothing catches it."""


class DieBeforePlaceholder(BasePlugin):
    """Dies when the placeholder result is about to be stored (the request already is)."""

    def __init__(self):
        super().__init__(name="die")

    async def on_event_callback(self, *, invocation_context, event):
        if any(r.name == "reimburse" for r in event.get_function_responses()) and invocation_context.session.events[-1].long_running_tool_ids:
            raise Crash()


def clerk(paid: list, turns=None) -> LlmAgent:
    def reimburse(amount: int) -> dict:
        """Pays an amount back."""
        paid.append(amount)
        return {"paid": amount}

    model = ScriptedLlm(turns or [ScriptedLlm.call("reimburse", amount=80), "Paid."])
    return LlmAgent(name="clerk", model=model, tools=[FunctionTool(reimburse, require_confirmation=True)])


def runner(sessions, agent, resumable: bool, plugins=()) -> Runner:
    config = ResumabilityConfig(is_resumable=True) if resumable else None
    return Runner(app=App(name=APP, root_agent=agent, resumability_config=config, plugins=list(plugins)),
                  session_service=sessions)


run = partial(collect, user_id=USER, session_id=SESSION)


@pytest.mark.parametrize("resumable", [True, False])
async def test_the_request_comes_before_the_placeholder_and_the_turn_ends(store_url, resumable):
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    paid: list = []
    events = await run(runner(sessions, clerk(paid), resumable), text("pay 80"))
    kinds = [("request" if e.long_running_tool_ids else "result" if e.get_function_responses() else "call")
             for e in events]
    assert kinds == ["call", "request", "result"] and paid == []
    await sessions.close()


@pytest.mark.parametrize("resumable", [True, False])
async def test_a_crash_between_request_and_placeholder_leaves_the_call_waiting_once(store_url, resumable):
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    paid: list = []
    with pytest.raises(Crash):
        await run(runner(sessions, clerk(paid), resumable, [DieBeforePlaceholder()]), text("pay 80"))
    if not store_url.startswith("memory"):
        await sessions.close()
        sessions = session_service_from_url(store_url)  # another process on the same store
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert not any(r.name == "reimburse" for e in session.events for r in e.get_function_responses())
    (request_id,) = open_requests(session.events)
    answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id=request_id, name="adk_request_confirmation", response={"confirmed": True}))])
    events = await run(runner(sessions, clerk(paid, ["Paid."]), resumable), answer)
    assert paid == [80] and [e.text() for e in events if e.text()] == ["Paid."]
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert not open_requests(session.events)  # answered once, never asked again
    assert sum(1 for e in session.events for c in e.get_function_calls() if c.name == "adk_request_confirmation") == 1
    await sessions.close()
