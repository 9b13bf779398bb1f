"""Rewind the ADK way: the event google-adk's Runner.rewind_async appends, honoured through
`append_event`; `session.events` after a rewind as ADK returns it (rewound events stay, the marker
follows); `Session.filter_events()`; and every Chronicle reader still skipping rewound events."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest
from google.genai import types
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import Event, EventActions, InvocationNotFoundError, StaleSessionError
from domain.rewind_ranges import live_events
from domain.session import Session
from runtime import LlmAgent, Runner, ScriptedLlm, ToolContext, session_service_from_url
from runtime.artifacts import LogArtifactService
from runtime.models import LlmRequest
from runtime.read_models.time_travel import At, TimeTravel
from runtime.sessions import GetSessionConfig
from tests.rt_helpers import answered

APP, USER, SESSION = "rewind_adk", "ann", "s1"
SCOPE = dict(app_name=APP, user_id=USER, session_id=SESSION)


# -- the live-events rule, over plain lists -------------------------------------------------------


def reference_live(events: list[Event]) -> list[Event]:
    """The rule told forward: after a rewind, the timeline is what it was just before the target
    invocation's first event (before the list, when the list does not hold it)."""
    timelines: list[list[Event]] = []  # timelines[k]: the live events after events[:k+1]
    first_of: dict[str, int] = {}
    for k, event in enumerate(events):
        target = event.actions.rewind_before_invocation_id
        if target:
            j = first_of.get(target, 0)
            timelines.append(list(timelines[j - 1]) if j > 0 else [])
        else:
            timelines.append([*(timelines[-1] if timelines else []), event])
        first_of.setdefault(event.invocation_id, k)
    return timelines[-1] if timelines else []


@st.composite
def histories(draw) -> list[Event]:
    """Turns of one or two events, some of them rewinds to an invocation seen so far (which may
    itself be a rewind, or already rewound)."""
    events: list[Event] = []
    invocations: list[str] = []
    for n in range(draw(st.integers(0, 12))):
        invocation = f"i{n}"
        if invocations and draw(st.integers(0, 3)) == 0:
            target = draw(st.sampled_from(invocations))
            events.append(Event(author="user", invocation_id=invocation,
                                actions=EventActions(rewind_before_invocation_id=target)))
        else:
            for _ in range(draw(st.integers(1, 2))):
                events.append(Event(author="a", invocation_id=invocation))
        invocations.append(invocation)
    return events


@settings(max_examples=300, deadline=None)
@given(histories(), st.data())
def test_filter_events_is_the_timeline_a_rewind_leaves_and_follows_appends(events, data):
    assert live_events(events) == reference_live(events)
    # Session.filter_events() keeps its answer between calls and extends it as events arrive
    session = Session(id="s", app_name="a", user_id="u")
    for cut in sorted(set(data.draw(st.lists(st.integers(0, len(events)), max_size=5))) | {len(events)}):
        session.events.extend(events[len(session.events):cut])
        assert session.filter_events() == reference_live(events[:cut])
        assert session.live_events() == reference_live(events[:cut])
    assert session.get_events() is session.events
    assert session.filter_events(exclude_rewound=False) is session.events
    # a list replaced or edited in place is filtered again, not read from what was kept
    session.events = list(reversed(events))
    assert session.filter_events() == reference_live(session.events)


# -- a session service, every store ---------------------------------------------------------------


async def turn(service, session, invocation_id: str, text: str, delta=None, artifacts=None) -> None:
    await service.append_event(session, Event(author="user", invocation_id=invocation_id,
                                              content=types.Content(role="user", parts=[types.Part(text=text)])))
    await service.append_event(session, Event(
        author="agent", invocation_id=invocation_id,
        actions=EventActions(state_delta=delta or {}, artifact_delta=artifacts or {}),
    ))


def adk_rewind_event(target: str, state_delta: dict[str, Any], artifact_delta: dict[str, int]) -> Event:
    """The event google-adk 2.13's Runner.rewind_async appends (sessions/_rewind_utils.py)."""
    return Event(
        invocation_id="e-adk-rewind",
        author="user",
        actions=EventActions(
            rewind_before_invocation_id=target, state_delta=state_delta, artifact_delta=artifact_delta
        ),
    )


async def test_a_rewind_event_appended_as_adk_appends_it_is_chronicles_rewind(service):
    session = await service.create_session(**SCOPE, state={"start": 1, "user:n": 1})
    await turn(service, session, "e-1", "one", {"a": 1}, {"doc.txt": 0})
    await turn(service, session, "e-2", "two", {"a": 2, "b": 2, "start": 5, "user:n": 2}, {"doc.txt": 1, "new.txt": 0})
    await turn(service, session, "e-3", "three", {"c": 3})
    version = session.version
    # ADK computes its delta from the events alone: it sets the initial state's key to None (#4933)
    # and names the versions its Runner just saved the earlier bytes as
    event = adk_rewind_event("e-2", {"a": 1, "b": None, "c": None, "start": None}, {"doc.txt": 2, "new.txt": 1})

    returned = await service.append_event(session, event)

    assert returned is event and session.version == version + 1
    # recorded as Chronicle's rewind: the initial state comes back, user: is shared and stays
    assert event.actions.state_delta == {"a": 1, "b": None, "c": None, "start": 1}
    assert event.actions.artifact_delta == {"doc.txt": 2, "new.txt": 1}  # as ADK's Runner wrote it
    loaded = await service.get_session(**SCOPE)
    assert loaded.state == {"start": 1, "a": 1, "user:n": 2}
    assert session.events[-1] is event and {k: session.state[k] for k in ("start", "a")} == {"start": 1, "a": 1}
    # ADK's shape: every event stays, the marker last; the filtered view is the timeline
    assert [e.invocation_id for e in loaded.events] == ["e-1"] * 2 + ["e-2"] * 2 + ["e-3"] * 2 + ["e-adk-rewind"]
    assert [e.invocation_id for e in loaded.filter_events()] == ["e-1", "e-1"]
    # the same rewind as rewind_session would record: e-2 cannot be rewound again, the marker can
    with pytest.raises(InvocationNotFoundError):
        await service.rewind_session(**SCOPE, rewind_before_invocation_id="e-2")
    await service.rewind_session(**SCOPE, rewind_before_invocation_id="e-adk-rewind")
    back = await service.get_session(**SCOPE)
    assert back.state == {"start": 5, "a": 2, "b": 2, "c": 3, "user:n": 2}
    assert [e.invocation_id for e in back.filter_events()] == ["e-1"] * 2 + ["e-2"] * 2 + ["e-3"] * 2
    # the files' view the rewind recorded is ADK's: the versions its Runner saved
    travel = TimeTravel(service.store)
    at_marker = travel.state_at((APP, USER, SESSION), At.event(event.id))
    assert at_marker.artifacts == {"doc.txt": 2, "new.txt": 1}
    assert travel.state_at((APP, USER, SESSION), At.before("e-2")).state == {"start": 1, "a": 1}


async def test_an_adk_rewind_event_to_an_unknown_or_rewound_invocation_writes_nothing(service):
    session = await service.create_session(**SCOPE)
    await turn(service, session, "e-1", "one", {"a": 1})
    await turn(service, session, "e-2", "two", {"a": 2})
    await service.append_event(session, adk_rewind_event("e-2", {"a": 1}, {}))
    before = await service.get_session(**SCOPE)
    for target in ("nope", "e-2"):
        event = adk_rewind_event(target, {}, {})
        event.id = f"rewind-{target}"
        with pytest.raises(InvocationNotFoundError):
            await service.append_event(before, event)
    after = await service.get_session(**SCOPE)
    assert after.version == before.version and len(after.events) == len(before.events) == 5
    assert after.state == before.state == {"a": 1}


async def test_an_adk_rewind_event_from_a_stale_writer_is_refused_and_a_retry_is_idempotent(service):
    session = await service.create_session(**SCOPE)
    await turn(service, session, "e-1", "one", {"a": 1})
    await turn(service, session, "e-2", "two", {"a": 2})
    stale = await service.get_session(**SCOPE)
    event = adk_rewind_event("e-2", {"a": 1}, {})
    await service.append_event(session, event)
    # the same event again (a retry whose first try landed) returns the stored one
    again = await service.append_event(stale, Event.model_validate(event.model_dump()))
    assert again.id == event.id and (await service.get_session(**SCOPE)).version == session.version
    # another writer, behind the store, gets StaleSessionError and writes nothing
    other = adk_rewind_event("e-1", {"a": None}, {})
    other.id = "another"
    with pytest.raises(StaleSessionError):
        await service.append_event(stale, other)
    assert (await service.get_session(**SCOPE)).state == {"a": 1}


async def test_windowed_reads_return_the_newest_events_with_rewound_ones_and_filter_them(service):
    session = await service.create_session(**SCOPE)
    for n in range(1, 5):
        await turn(service, session, f"e-{n}", str(n), {"n": n})
    marker = await service.rewind_session(**SCOPE, rewind_before_invocation_id="e-2")
    await turn(service, session := await service.get_session(**SCOPE), "e-5", "5", {"n": 5})
    whole = await service.get_session(**SCOPE)
    assert len(whole.events) == 4 * 2 + 1 + 2
    for n in range(1, len(whole.events) + 1):
        window = await service.get_session(**SCOPE, config=GetSessionConfig(num_recent_events=n))
        assert [e.id for e in window.events] == [e.id for e in whole.events[-n:]]
        # what is left once rewound events are filtered: never an event the rewind took back
        live = {e.id for e in whole.filter_events()}
        assert {e.id for e in window.filter_events()} <= live
        assert [e.id for e in window.filter_events()] == [e.id for e in whole.filter_events() if e in window.events]
    assert whole.events[8].id == marker.id


# -- through the Runner ---------------------------------------------------------------------------


async def write_file(name: str, text: str, tool_context: ToolContext) -> dict[str, Any]:
    """Writes a file."""
    version = await tool_context.save_artifact(name, types.Part(text=text))
    tool_context.state["last"] = text
    return {"version": version}


async def read_file(name: str, tool_context: ToolContext) -> dict[str, Any]:
    """Reads a file."""
    part = await tool_context.load_artifact(name)
    return {"text": None if part is None else part.text}


def brain(request: LlmRequest) -> Any:
    last = request.contents[-1].parts[-1]
    if last.function_response is not None:
        return f"{last.function_response.name} -> {json.dumps(last.function_response.response, sort_keys=True)}"
    words = (last.text or "").split(" ", 2)
    if words[0] == "write":
        return ScriptedLlm.call("write_file", name=words[1], text=words[2])
    if words[0] == "read":
        return ScriptedLlm.call("read_file", name=words[1])
    if words[0] == "helper":
        return ScriptedLlm.call("transfer_to_agent", agent_name="helper")
    return f"echo {last.text}"


def make_runner(store_url: str) -> Runner:
    sessions = session_service_from_url(store_url)
    helper = LlmAgent(name="helper", model=ScriptedLlm(["helper here"], cycle=True))
    agent = LlmAgent(name="scribe", model=ScriptedLlm([brain], cycle=True), tools=[write_file, read_file],
                     sub_agents=[helper])
    return Runner(app_name=APP, agent=agent, session_service=sessions, artifact_service=LogArtifactService(sessions.store))


@pytest.fixture
async def runner(store_url):
    runner = make_runner(store_url)
    await runner.session_service.create_session(**SCOPE, state={"start": 1})
    yield runner
    await runner.close()
    await runner.session_service.close()


say = partial(answered, user_id=USER, session_id=SESSION)


def seen(runner: Runner) -> list[str]:
    return [p.text for c in runner.agent.model.requests[-1].contents for p in c.parts if p.text]


async def test_an_app_rewinding_as_adks_runner_does_gets_state_files_and_context_back(runner):
    """What google-adk's Runner.rewind_async does, written out by an app: save each file's earlier
    bytes as a new version, then append the rewind event naming those versions."""
    sessions, artifacts = runner.session_service, runner.artifact_service
    await say(runner, "write plan.md A")
    second, _ = await say(runner, "write plan.md B")
    await say(runner, "write plan.md C")
    earlier = await artifacts.load_artifact(**SCOPE, filename="plan.md", version=0)
    restored = await artifacts.save_artifact(**SCOPE, filename="plan.md", artifact=earlier)
    assert restored == 3  # numbering goes on, as ADK's does
    session = await sessions.get_session(**SCOPE)
    await sessions.append_event(session, adk_rewind_event(second, {"last": "A"}, {"plan.md": restored}))

    _, answers = await say(runner, "read plan.md")
    assert answers == ['read_file -> {"text": "A"}']
    assert "write plan.md A" in seen(runner) and not {"write plan.md B", "write plan.md C"} & set(seen(runner))
    session = await sessions.get_session(**SCOPE)
    assert session.state == {"start": 1, "last": "A"}
    assert await artifacts.list_versions(**SCOPE, filename="plan.md") == [0, 1, 2, 3]


async def test_runner_rewind_numbers_restored_files_as_adk_and_rewinding_the_rewind_goes_on(runner):
    artifacts = runner.artifact_service
    await say(runner, "write plan.md A")
    second, _ = await say(runner, "write plan.md B")
    await say(runner, "write notes.txt N")
    marker = await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=second)
    assert marker.actions.artifact_delta == {"plan.md": 2}
    assert await artifacts.list_versions(**SCOPE, filename="plan.md") == [0, 1, 2]
    assert await artifacts.load_artifact(**SCOPE, filename="notes.txt") is None
    assert await artifacts.list_versions(**SCOPE, filename="notes.txt") == []  # deleted, not a tombstone
    undo = await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=marker.invocation_id)
    assert undo.actions.artifact_delta == {"plan.md": 3, "notes.txt": 1}
    assert (await artifacts.load_artifact(**SCOPE, filename="plan.md")).text == "B"
    assert (await artifacts.load_artifact(**SCOPE, filename="notes.txt")).text == "N"
    session = await runner.session_service.get_session(**SCOPE)
    assert [e.id for e in session.events[-2:]] == [marker.id, undo.id]
    # the time-travel view of the session's files after each rewind names the restored versions
    travel = TimeTravel(runner.session_service.store)
    assert travel.state_at((APP, USER, SESSION), At.event(marker.id)).artifacts == {"plan.md": 2}
    assert travel.state_at((APP, USER, SESSION), At.latest()).artifacts == {"plan.md": 3, "notes.txt": 1}


async def test_rewound_turns_choose_no_agent_and_leave_no_open_request(runner):
    """ADK issue 4169: the next agent was once chosen from rewound events."""
    await say(runner, "hello")
    transferred, answers = await say(runner, "helper please")
    assert answers[-1] == "helper here"
    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=transferred)
    _, answers = await say(runner, "who answers")
    assert answers == ["echo who answers"]  # the root agent, not the helper of the rewound turn
    session = await runner.session_service.get_session(**SCOPE)
    assert "helper" in {e.author for e in session.events}  # the rewound turn is still there, as in ADK
    assert "helper" not in {e.author for e in session.filter_events()}


async def test_fork_of_a_session_rewound_the_adk_way_copies_its_timeline(service):
    session = await service.create_session(**SCOPE)
    await turn(service, session, "e-1", "one", {"a": 1})
    await turn(service, session, "e-2", "two", {"a": 2})
    await service.append_event(session, adk_rewind_event("e-2", {"a": 1}, {}))
    fork = await service.fork_session(**SCOPE, new_session_id="copy")
    copied = await service.get_session(app_name=APP, user_id=USER, session_id="copy")
    assert fork.state == copied.state == {"a": 1}
    assert [e.invocation_id for e in copied.events] == ["e-1", "e-1"]


async def test_two_runners_rewinding_at_once_leave_the_files_as_the_recorded_rewind_says(shared_store_url):
    """Both restore the files, then record: one may find its target gone, or both succeed in
    either order. Either way the files end as the last recorded rewind says."""
    import asyncio

    a, b = make_runner(shared_store_url), make_runner(shared_store_url)
    await a.session_service.create_session(**SCOPE)
    await say(a, "write plan.md A")
    second, _ = await say(a, "write plan.md B")
    third, _ = await say(a, "write plan.md C")
    results = await asyncio.gather(
        a.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=second),
        b.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=third),
        return_exceptions=True,
    )
    recorded = [r for r in results if isinstance(r, Event)]
    assert len(recorded) >= 1 and all(isinstance(r, (Event, InvocationNotFoundError)) for r in results)
    session = await a.session_service.get_session(**SCOPE)
    assert (await a.artifact_service.load_artifact(**SCOPE, filename="plan.md")).text == session.state["last"]
    for r in (a, b):
        await r.close()
        await r.session_service.close()
