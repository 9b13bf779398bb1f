"""Event compaction: the summary stands in for the events it covers in the LLM context, the log
keeps them, rewinds across compactions work, pending calls are never summarised away."""

from __future__ import annotations

import itertools
import logging
import re
from typing import Any, Optional

import pytest
from google.genai import types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import Event, EventActions
from domain.events import EventCompaction
from runtime.agents.llm_context import OTHER_AGENT_PREAMBLE, quote_untrusted, LlmContextTracker, fold_all, request_contents
from runtime import (
    App,
    GetSessionConfig,
    LlmAgent,
    LongRunningFunctionTool,
    ResumabilityConfig,
    Runner,
    ScriptedLlm,
    session_service_from_url,
)
from runtime.compaction import EventsCompactionConfig, choose_events, kept_event_ids
from runtime.models import LlmRequest
from tests.test_llm_context import call_event, histories, result_event, rewind_event, summary, text_event
from tests.rt_helpers import collect, user_msg

APP, USER, SESSION = "compact_app", "cat", "s1"


# -- the fold ------------------------------------------------------------------------------------


def compaction(covered: list[Event], text: str, inv: str) -> Event:
    return Event(
        author="user",
        invocation_id=inv,
        actions=EventActions(
            compaction=EventCompaction(
                start_timestamp=covered[0].timestamp,
                end_timestamp=covered[-1].timestamp,
                compacted_content=types.Content(role="model", parts=[types.Part(text=text)]),
                event_ids=[e.id for e in covered],
            )
        ),
    )


def contents(events: list[Event], agent: str = "a") -> list[str]:
    return summary(request_contents(fold_all(events, agent_name=agent, branch=None)))


def test_the_summary_replaces_exactly_the_covered_events():
    one = [text_event("user", "q1", inv="i1"), text_event("a", "a1", inv="i1")]
    two = [text_event("user", "q2", inv="i2"), call_event("a", "c1", inv="i2"), result_event("a", "c1", {"r": 1}, inv="i2"),
           text_event("a", "a2", inv="i2")]
    three = [text_event("user", "q3", inv="i3"), text_event("b", "b3", inv="i3")]
    c = compaction(one + two[:2] + two[2:], "S12", "ic")
    events = one + two + three + [c]
    assert contents(events) == ["model:S12", "user:q3", f"user:{OTHER_AGENT_PREAMBLE}", f"user:[b] said:\n{quote_untrusted('b3')}"]
    # the view keeps folding after it
    tracker = LlmContextTracker()
    tracker.contents(events[:-1], agent_name="a", branch=None)
    later = events + [text_event("user", "q4", inv="i4")]
    assert summary(tracker.contents(later, agent_name="a", branch=None)) == contents(later)
    # a results event whose call was summarised is dropped (the model would refuse it)
    stray = later + [result_event("user", "c1", {"again": 1}, inv="i5")]
    assert contents(stray) == contents(later)


def test_a_newer_compaction_can_cover_an_older_one_and_overlaps_keep_both():
    e = [text_event("user", f"q{i}", inv=f"i{i}") for i in range(6)]
    c1 = compaction(e[0:2], "S01", "c1")
    c2 = compaction(e[1:4], "S13", "c2")  # overlaps e[1] with c1: both summaries stay
    assert contents(e[:2] + [c1] + e[2:4] + [c2] + e[4:]) == [
        "model:S01", "model:S13", "user:q4", "user:q5"]
    c3 = compaction([c1, *e[2:4]], "S03", "c3")  # a rolling summary subsumes the older one
    assert contents(e[:2] + [c1] + e[2:4] + [c3] + e[4:]) == ["model:S03", "user:q4", "user:q5"]


def test_rewinding_across_a_compaction_brings_the_events_back():
    e = [text_event("user", f"q{i}", inv=f"i{i}") for i in range(4)]
    c = compaction(e[:3], "S", "ic")
    base = e[:3] + [c] + e[3:]
    tracker = LlmContextTracker()
    tracker.contents(base, agent_name="a", branch=None)
    # rewinding to an invocation the compaction covers: it no longer applies
    rewound = base + [rewind_event("i2", "r1")]
    assert summary(tracker.contents(rewound, agent_name="a", branch=None)) == ["user:q0", "user:q1"] == contents(rewound)
    # rewinding to the compaction itself
    tracker = LlmContextTracker()
    tracker.contents(base, agent_name="a", branch=None)
    rewound = base + [rewind_event("ic", "r2")]
    assert summary(tracker.contents(rewound, agent_name="a", branch=None)) == ["user:q0", "user:q1", "user:q2"]
    # rewinding to after it keeps it
    rewound = base + [rewind_event("i3", "r3")]
    assert summary(tracker.contents(rewound, agent_name="a", branch=None)) == ["model:S"]
    # rewinding the rewind brings the compaction back
    again = base + [rewind_event("i2", "r1"), rewind_event("r1", "r4")]
    assert contents(again) == ["model:S", "user:q3"]


@st.composite
def compacted_histories(draw):
    """Random histories (see test_llm_context) with compactions of random runs of the visible
    events added at random points."""
    from domain.rewind_ranges import live_events

    events = draw(histories())
    out: list[Event] = []
    counter = itertools.count()
    for event in events:
        out.append(event)
        if draw(st.integers(0, 4)) == 0:
            visible = [e for e in live_events(out) if not e.actions.rewind_before_invocation_id]
            if visible:
                start = draw(st.integers(0, len(visible) - 1))
                end = draw(st.integers(start + 1, len(visible)))
                out.append(compaction(visible[start:end], f"S{next(counter)}", f"ic{next(counter)}"))
    return out


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(compacted_histories(), st.sampled_from([None, "p", "p.a"]), st.data())
def test_incremental_folding_equals_batch_with_compactions_and_rewinds(events, branch, data):
    tracker = LlmContextTracker()
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(events)), max_size=6))) | {len(events)})
    for cut in cuts:
        prefix = events[:cut]
        batch = request_contents(fold_all(prefix, agent_name="a", branch=branch))
        assert summary(tracker.contents(prefix, agent_name="a", branch=branch)) == summary(batch)
    # no text of an event under an applying compaction is shown
    from domain.rewind_ranges import live_events

    alive = live_events(events)
    covered = {i for e in alive if e.actions.compaction for i in e.actions.compaction.event_ids}
    shown = set(summary(request_contents(fold_all(events, agent_name="a", branch=branch))))
    for e in alive:
        if e.id in covered and e.author == "user" and e.text():
            assert f"user:{e.text()}" not in shown


# -- choosing what to compact ----------------------------------------------------------------------


def test_pending_calls_and_their_interim_results_are_kept():
    pending = call_event("a", "lr1", inv="i1")
    pending.long_running_tool_ids = {"lr1"}
    interim = result_event("a", "lr1", {"status": "pending"}, inv="i1")
    unanswered = call_event("a", "crash1", inv="i2")  # a crash left it without a result
    confirm = Event(author="a", invocation_id="i3", content=types.Content(role="user", parts=[types.Part(
        function_response=types.FunctionResponse(id="t1", name="transfer", response={"error": "needs confirmation"}))]),
        actions=EventActions(requested_tool_confirmations={"t1": {"hint": "ok?"}}))
    ask = Event(author="a", invocation_id="i3", content=types.Content(role="model", parts=[types.Part(
        function_call=types.FunctionCall(id="rc1", name="adk_request_confirmation",
                                         args={"originalFunctionCall": {"id": "t1"}}))]), long_running_tool_ids={"rc1"})
    events = [text_event("user", "q", inv="i1"), pending, interim, unanswered, confirm, ask]
    assert kept_event_ids(events) == {pending.id, interim.id, unanswered.id, confirm.id, ask.id}
    # once answered, nothing is held back
    answered = events + [
        result_event("user", "lr1", {"done": 1}, inv="i1"),
        result_event("a", "crash1", {"ok": 1}, inv="i2"),
        result_event("user", "rc1", {"confirmed": True}, name="adk_request_confirmation", inv="i3"),
    ]
    assert kept_event_ids(answered) == set()


def test_sliding_window_counts_invocations_since_the_last_compaction():
    config = EventsCompactionConfig(compaction_interval=2, overlap_size=1)
    e = [text_event("user" if i % 2 == 0 else "a", f"m{i}", inv=f"i{i // 2}") for i in range(8)]  # i0..i3
    assert [x.text() for x in choose_events(e[:2], config)[0]] == []
    first, _ = choose_events(e[:4], config)
    assert [x.text() for x in first] == ["m0", "m1", "m2", "m3"]
    c1 = compaction(first, "S", "c1")
    after = e[:4] + [c1] + e[4:6]
    assert choose_events(after, config)[0] == []  # one new invocation only
    second, _ = choose_events(after + e[6:], config)
    assert [x.text() for x in second] == ["m2", "m3", "m4", "m5", "m6", "m7"]  # i1 again (overlap), i2, i3


def test_token_threshold_rolls_the_last_summary_in_and_keeps_the_newest_events():
    config = EventsCompactionConfig(compaction_interval=0, overlap_size=0, token_threshold=10, event_retention_size=2)
    e = [text_event("user", "x" * 20, inv=f"i{i}") for i in range(5)]
    chosen, previous = choose_events(e, config)
    assert chosen == e[:3] and previous is None
    c = compaction(chosen, "S", "c1")
    more = e + [c] + [text_event("user", "y" * 20, inv=f"j{i}") for i in range(3)]
    chosen, previous = choose_events(more, config)
    assert previous is c and [x.text() for x in chosen] == ["x" * 20] * 2 + ["y" * 20]
    assert choose_events(e[:2], config) == ([], None)


# -- through the Runner, on every store ------------------------------------------------------


def summarizer_turn(request: LlmRequest) -> str:
    prompt = request.contents[0].parts[0].text
    said = re.findall(r"^user: (.*)$", prompt, re.M)
    rolled = re.findall(r"^\[summary of earlier conversation\]: (.*)$", prompt, re.M)
    return "summary(" + ",".join(rolled + said) + ")"


def agent_turn(request: LlmRequest) -> Any:
    last = request.contents[-1].parts[-1]
    if last.function_response is not None:
        return "noted"
    if (last.text or "").startswith("approve"):
        return ScriptedLlm.call("approve", what=last.text)
    return f"re: {last.text}"


def approve(what: str) -> None:
    """Asks a person."""
    return None


def make_runner(url_or_service: Any, config: EventsCompactionConfig, *, resumable: bool = False) -> Runner:
    sessions = session_service_from_url(url_or_service) if isinstance(url_or_service, str) else url_or_service
    agent = LlmAgent(name="helper", model=ScriptedLlm([agent_turn], cycle=True), tools=[LongRunningFunctionTool(approve)])
    app = App(
        name=APP,
        root_agent=agent,
        events_compaction_config=config,
        resumability_config=ResumabilityConfig(is_resumable=True) if resumable else None,
    )
    return Runner(app=app, session_service=sessions)


async def say(runner: Runner, text: Optional[str] = None, message: Optional[types.Content] = None, **kwargs: Any) -> list[Event]:
    return await collect(runner, message or user_msg(text), user_id=USER, session_id=SESSION, **kwargs)


def seen(runner: Runner) -> list[str]:
    return [p.text for c in runner.agent.model.requests[-1].contents for p in c.parts if p.text]


async def all_events(runner: Runner) -> list[Event]:
    session = await runner.session_service.get_session(
        app_name=APP, user_id=USER, session_id=SESSION
    )
    return session.events


@pytest.fixture
async def summarizer():
    return ScriptedLlm([summarizer_turn], cycle=True)


async def test_runner_compacts_every_interval_and_the_model_sees_the_summary(store_url, summarizer):
    config = EventsCompactionConfig(compaction_interval=2, overlap_size=1, summarizer=summarizer)
    runner = make_runner(store_url, config)
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    invocations = []
    for i in range(5):
        invocations.append((await say(runner, f"m{i}"))[0].invocation_id)
    events = await all_events(runner)
    compactions = [e for e in events if e.actions.compaction]
    assert len(compactions) == 2 and summarizer.turns_played == 2
    by_id = {e.id: e for e in events}
    covered = [[by_id[i] for i in c.actions.compaction.event_ids] for c in compactions]
    # the exact events: m0,m1 with answers; then (overlap) m1 again with m2,m3
    assert [e.text() for e in covered[0]] == ["m0", "re: m0", "m1", "re: m1"]
    assert [e.text() for e in covered[1]] == ["m1", "re: m1", "m2", "re: m2", "m3", "re: m3"]
    assert compactions[1].actions.compaction.compacted_content.parts[0].text == "summary(m1,m2,m3)"
    assert compactions[0].actions.compaction.start_timestamp == covered[0][0].timestamp
    # the log keeps everything; the model saw the summaries instead of the covered turns
    assert [e.text() for e in events if e.author == "user" and e.text()] == [f"m{i}" for i in range(5)]
    assert seen(runner) == ["summary(m0,m1)", "summary(m1,m2,m3)", "m4"]
    # a cold runner on the same store folds the same context
    if store_url != "memory://":
        cold = make_runner(store_url, config)
        await say(cold, "m5")
        assert seen(cold) == ["summary(m0,m1)", "summary(m1,m2,m3)", "m4", "re: m4", "m5"]
        await cold.session_service.close()

    # rewinding across the second compaction: it no longer applies, the first still does
    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=invocations[3])
    await say(runner, "after rewind")
    assert seen(runner) == ["summary(m0,m1)", "m2", "re: m2", "after rewind"]
    await runner.session_service.close()


async def test_rewinding_to_the_compaction_itself(store_url, summarizer):
    config = EventsCompactionConfig(compaction_interval=2, overlap_size=0, summarizer=summarizer)
    runner = make_runner(store_url, config)
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    await say(runner, "a")
    await say(runner, "b")
    compacted = [e for e in await all_events(runner) if e.actions.compaction][0]
    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=compacted.invocation_id)
    await say(runner, "c")
    assert seen(runner) == ["a", "re: a", "b", "re: b", "c"]
    await runner.session_service.close()


async def test_token_threshold_compaction_through_the_runner(store_url, summarizer):
    config = EventsCompactionConfig(
        compaction_interval=0, overlap_size=0, token_threshold=12, event_retention_size=2, summarizer=summarizer
    )
    runner = make_runner(store_url, config)
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    for word in ("alpha " * 8, "beta " * 8, "gamma " * 8):
        await say(runner, word.strip())
    compactions = [e for e in await all_events(runner) if e.actions.compaction]
    assert compactions, "the prompt grew past the threshold"
    latest = compactions[-1]
    # rolling: the latest summary covers the one before it
    if len(compactions) > 1:
        assert compactions[-2].id in latest.actions.compaction.event_ids
    request = seen(runner)
    # one summary, first, as the agent's own turn (google-adk 2.13's way)
    first = runner.agent.model.requests[-1].contents[0]
    assert first.role == "model" and request[0].startswith("summary(")
    assert sum(text.startswith("summary(") for text in request) == 1
    await runner.session_service.close()


async def test_a_paused_call_is_never_summarised_away(store_url, summarizer):
    config = EventsCompactionConfig(compaction_interval=1, overlap_size=0, summarizer=summarizer)
    runner = make_runner(store_url, config, resumable=True)
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    await say(runner, "hello")
    paused = await say(runner, "approve the plan")
    call = paused[0]
    assert call.long_running_tool_ids
    events = await all_events(runner)
    compactions = [e for e in events if e.actions.compaction]
    covered = {i for c in compactions for i in c.actions.compaction.event_ids}
    assert call.id not in covered
    # the user message of the paused invocation was summarised; the call waits in the context
    call_id = next(iter(call.long_running_tool_ids))
    answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id=call_id, name="approve", response={"ok": True}))])
    resumed = await say(runner, message=answer, invocation_id=call.invocation_id)
    assert [e.text() for e in resumed if e.text()] == ["noted"]
    request = runner.agent.model.requests[-1].contents
    assert request[-2].parts[0].function_call.id == call_id
    assert request[-1].parts[0].function_response.response == {"ok": True}
    await runner.session_service.close()


async def test_a_failing_summarizer_does_not_fail_the_turn(caplog):
    def broken(request: LlmRequest) -> str:
        raise RuntimeError("summariser down")

    config = EventsCompactionConfig(compaction_interval=1, overlap_size=0, summarizer=ScriptedLlm([broken], cycle=True))
    runner = make_runner("memory://", config)
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    with caplog.at_level(logging.WARNING, logger="chronicle.runner"):
        events = await say(runner, "hi")
    assert [e.text() for e in events] == ["re: hi"]
    assert "Compacting session" in caplog.text
    assert not [e for e in await all_events(runner) if e.actions.compaction]
