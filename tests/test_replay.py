"""Runner.replay: a session's user messages re-run in a fork through the current agent, with a
per-turn report of what differs. The source is never touched."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.genai import types

from domain import InvalidArgumentError
from runtime import (
    App,
    GetSessionConfig,
    LlmAgent,
    LongRunningFunctionTool,
    ResumabilityConfig,
    Runner,
    ScriptedLlm,
    ToolContext,
)
from runtime.artifacts import LogArtifactService
from runtime.models import LlmRequest
from tests.rt_helpers import collect, user_msg

APP, USER, SESSION = "replay_app", "dee", "s1"
INITIAL_STATE = {"tier": "gold"}  # the `sessions` fixture's session starts with it


def make_brain(style: str):
    """'calc A+B' calls add; 'note X' saves a file; 'show' reads it; anything else is answered in
    the given style."""

    def brain(request: LlmRequest) -> Any:
        last = request.contents[-1].parts[-1]
        if last.function_response is not None:
            return f"{style}: {json.dumps(last.function_response.response, sort_keys=True)}"
        text = last.text or ""
        if text.startswith("calc "):
            a, b = text[5:].split("+")
            return ScriptedLlm.call("add", a=int(a), b=int(b) + (1 if style == "sloppy" else 0))
        if text.startswith("note "):
            return ScriptedLlm.call("note", text=text[5:])
        if text == "show":
            return ScriptedLlm.call("show")
        if text == "ask":
            return ScriptedLlm.call("ask_boss", question="may I?")
        if style == "sloppy" and "mood" in text:
            return "whatever"
        return f"{style}: {text} (mood={request.contents and 'ok'})"

    return brain


def add(a: int, b: int) -> int:
    """Adds."""
    return a + b


async def note(text: str, tool_context: ToolContext) -> dict:
    """Saves a note."""
    return {"version": await tool_context.save_artifact("note.txt", types.Part(text=text))}


async def show(tool_context: ToolContext) -> dict:
    """Shows the note."""
    part = await tool_context.load_artifact("note.txt")
    return {"note": part.text if part else None}


def ask_boss(question: str) -> None:
    """Asks the boss (answers later)."""
    return None


def runner_for(sessions: Any, style: str, *, resumable: bool = False) -> Runner:
    agent = LlmAgent(
        name="clerk",
        model=ScriptedLlm([make_brain(style)], cycle=True),
        tools=[add, note, show, LongRunningFunctionTool(ask_boss)],
    )
    app = App(name=APP, root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=True) if resumable else None)
    return Runner(app=app, session_service=sessions, artifact_service=LogArtifactService(sessions.store))


async def say(runner: Runner, text: str, **kwargs: Any) -> list:
    return await collect(runner, user_msg(text), user_id=USER, session_id=SESSION, **kwargs)


async def test_the_same_agent_replays_identically_and_the_source_is_untouched(sessions):
    runner = runner_for(sessions, "careful")
    await say(runner, "hello", state_delta={"mood": "happy"})
    await say(runner, "calc 2+3")
    await say(runner, "note remember the milk")
    await say(runner, "show")
    source = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)

    report = await runner.replay(user_id=USER, session_id=SESSION, new_session_id="replay-1")
    assert report.identical, report.format()
    assert report.session_id == "replay-1" and len(report.turns) == 4
    assert [t.user_message for t in report.turns] == ["hello", "calc 2+3", "note remember the milk", "show"]
    assert report.turns[1].recorded_calls == report.turns[1].replayed_calls == ['add({"a": 2, "b": 3})']
    assert report.turns[3].replayed_answer == 'careful: {"note": "remember the milk"}'
    after = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert after.version == source.version
    replayed = await sessions.get_session(app_name=APP, user_id=USER, session_id="replay-1")
    # initial state and the state the user's messages carried are replayed too
    assert replayed.state["tier"] == "gold" and replayed.state["mood"] == "happy"
    assert {t.invocation_id for t in report.turns}.isdisjoint({t.source_invocation_id for t in report.turns})


async def test_another_agent_is_compared_turn_by_turn(sessions):
    recorded = runner_for(sessions, "careful")
    for text in ("hello", "calc 2+3", "how is the mood?"):
        await say(recorded, text)
    other = runner_for(sessions, "sloppy")  # another model on the same store
    report = await other.replay(user_id=USER, session_id=SESSION)
    assert [t.differs for t in report.turns] == [True, True, True]
    calc = report.turns[1]
    assert calc.calls_differ and calc.recorded_calls == ['add({"a": 2, "b": 3})']
    assert calc.replayed_calls == ['add({"a": 2, "b": 4})']
    assert calc.recorded_answer == 'careful: {"result": 5}' and calc.replayed_answer == 'sloppy: {"result": 6}'
    assert report.turns[2].replayed_answer == "whatever"
    text = report.format()
    assert "3 turns, 3 differ" in text and "-call add" in text and "+call add" in text
    # the source is still the careful conversation
    source = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert "careful" in source.events[-1].text()


async def test_replay_from_a_turn_keeps_the_history_and_files_before_it(sessions):
    runner = runner_for(sessions, "careful")
    await say(runner, "note first draft")
    second = (await say(runner, "show"))[0].invocation_id
    await say(runner, "calc 1+1")
    report = await runner_for(sessions, "careful").replay(user_id=USER, session_id=SESSION, from_invocation_id=second)
    assert [t.user_message for t in report.turns] == ["show", "calc 1+1"] and report.identical, report.format()
    assert report.forked_before == second
    fork = await sessions.get_session(app_name=APP, user_id=USER, session_id=report.session_id)
    assert [e.text() for e in fork.events if e.author == "user" and e.text()] == ["note first draft", "show", "calc 1+1"]
    with pytest.raises(InvalidArgumentError):
        await runner.replay(user_id=USER, session_id=SESSION, from_invocation_id="e-nope")


async def test_replay_skips_rewound_turns_and_answers_long_running_calls_again(sessions):
    runner = runner_for(sessions, "careful", resumable=True)
    await say(runner, "hello")
    bad = (await say(runner, "calc 9+9"))[0].invocation_id
    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=bad)
    paused = await say(runner, "ask")
    call_id = next(iter(paused[0].long_running_tool_ids))
    answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id=call_id, name="ask_boss", response={"yes": True}))])
    [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=answer)]
    report = await runner_for(sessions, "careful", resumable=True).replay(user_id=USER, session_id=SESSION)
    assert [t.user_message for t in report.turns] == ["hello", "ask"]
    assert report.identical, report.format()
    assert report.turns[1].replayed_answer == 'careful: {"yes": true}'
    audit = await sessions.get_session(
        app_name=APP, user_id=USER, session_id=report.session_id
    )
    assert "calc 9+9" not in [e.text() for e in audit.events]
