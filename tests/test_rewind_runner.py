"""Runner.rewind_async: one append, state and files back as they were, on every store."""

from __future__ import annotations

import json
from functools import partial
from typing import Any, Optional

import pytest
from google.genai import types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import InvocationNotFoundError
from runtime import GetSessionConfig, LlmAgent, Runner, ScriptedLlm, ToolContext, session_service_from_url
from runtime.artifacts import LogArtifactService
from runtime.models import LlmRequest
from runtime.read_models.time_travel import At, TimeTravel
from tests.rt_helpers import answered

APP, USER, SESSION = "rewind_app", "ann", "s1"


async def write_file(name: str, text: str, tool_context: ToolContext) -> dict[str, Any]:
    """Writes a file and notes it in state."""
    version = await tool_context.save_artifact(name, types.Part(text=text))
    tool_context.state[f"file:{name}"] = text
    tool_context.state["last_write"] = name
    tool_context.state["user:writes"] = int(tool_context.state.get("user:writes") or 0) + 1
    return {"version": version}


async def read_file(name: str, tool_context: ToolContext) -> dict[str, Any]:
    """Reads a file."""
    part = await tool_context.load_artifact(name)
    return {"text": None if part is None else part.text}


def brain(request: LlmRequest) -> Any:
    """'write NAME TEXT' and 'read NAME' call tools; anything else is echoed; tool results are
    reported as JSON."""
    last = request.contents[-1].parts[-1]
    if last.function_response is not None:
        return f"{last.function_response.name} -> {json.dumps(last.function_response.response, sort_keys=True)}"
    words = (last.text or "").split(" ", 2)
    if words[0] == "write":
        return ScriptedLlm.call("write_file", name=words[1], text=words[2])
    if words[0] == "read":
        return ScriptedLlm.call("read_file", name=words[1])
    return f"echo {last.text}"


def make_runner(url_or_services: Any, model: Optional[ScriptedLlm] = None) -> Runner:
    if isinstance(url_or_services, str):
        sessions = session_service_from_url(url_or_services)
        artifacts = LogArtifactService(sessions.store)
    else:
        sessions, artifacts = url_or_services
    agent = LlmAgent(name="scribe", model=model or ScriptedLlm([brain], cycle=True), tools=[write_file, read_file])
    return Runner(app_name=APP, agent=agent, session_service=sessions, artifact_service=artifacts)


say = partial(answered, user_id=USER, session_id=SESSION)


def seen_texts(request: LlmRequest) -> list[str]:
    return [p.text for c in request.contents for p in c.parts if p.text]


async def load(runner: Runner, session_id: str = SESSION):
    return await runner.session_service.get_session(app_name=APP, user_id=USER, session_id=session_id)


@pytest.fixture
async def runner(store_url):
    runner = make_runner(store_url)
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id=SESSION, state={"start": 1})
    yield runner
    await runner.close()
    await runner.session_service.close()


async def test_rewind_restores_state_and_files_and_hides_the_turns(runner, store_url):
    first, _ = await say(runner, "write plan.md plan A")
    second, _ = await say(runner, "write plan.md plan B")
    third, _ = await say(runner, "write notes.txt scratch")
    before = await load(runner)
    assert before.state["file:plan.md"] == "plan B" and before.state["user:writes"] == 3

    marker = await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=second)
    assert marker.actions.rewind_before_invocation_id == second

    session = await load(runner)
    # one append: the marker
    assert session.version == before.version + 1 and session.events[-1].id == marker.id
    # session state as before `second`, initial state included; later keys absent; user: kept
    assert session.state == {"start": 1, "file:plan.md": "plan A", "last_write": "plan.md", "user:writes": 3}
    assert session.state.get("file:notes.txt") is None
    # as in ADK, session.events keeps the rewound turns, then the marker; filter_events() drops both
    assert [e.invocation_id for e in session.events][-1] == marker.invocation_id
    assert {e.invocation_id for e in session.events} == {first, second, third, marker.invocation_id}
    assert {e.invocation_id for e in session.filter_events()} == {first}

    # the files: plan.md has plan A's bytes again, as a new version (numbers go on, as in ADK),
    # which the marker's artifact_delta names; notes.txt is gone
    artifacts = runner.artifact_service
    scope = dict(app_name=APP, user_id=USER, session_id=SESSION)
    assert marker.actions.artifact_delta == {"plan.md": 2}
    assert await artifacts.list_versions(filename="plan.md", **scope) == [0, 1, 2]
    assert (await artifacts.load_artifact(filename="plan.md", **scope)).text == "plan A"
    assert await artifacts.load_artifact(filename="notes.txt", **scope) is None
    assert await artifacts.list_artifact_keys(**scope) == ["plan.md"]

    # the next turn sees the rewound timeline: tools read the earlier bytes, the model the earlier talk
    _, answers = await say(runner, "read plan.md")
    assert answers == ['read_file -> {"text": "plan A"}']
    request = runner.agent.model.requests[-1]
    assert "write plan.md plan A" in seen_texts(request)
    assert not {"write plan.md plan B", "write notes.txt scratch"} & set(seen_texts(request))
    _, answers = await say(runner, "read notes.txt")
    assert answers == ['read_file -> {"text": null}']
    # rewinding the rewind brings the deleted file back
    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=marker.invocation_id)
    assert (await artifacts.load_artifact(filename="notes.txt", **scope)).text == "scratch"
    assert (await artifacts.load_artifact(filename="plan.md", **scope)).text == "plan B"
    assert (await load(runner)).state["file:notes.txt"] == "scratch"


async def test_rewind_twice_rewind_a_rewind_and_continue(runner, store_url):
    one, _ = await say(runner, "write plan.md v1")
    two, _ = await say(runner, "write plan.md v2")
    marker = await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=two)
    # rewinding the rewind brings the turn back, with its file version
    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=marker.invocation_id)
    session = await load(runner)
    assert session.state["file:plan.md"] == "v2"
    _, answers = await say(runner, "read plan.md")
    assert answers == ['read_file -> {"text": "v2"}']
    # continue, rewind again on the new timeline, twice in a row
    three, _ = await say(runner, "write plan.md v3")
    four, _ = await say(runner, "write plan.md v4")
    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=four)
    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=three)
    _, answers = await say(runner, "read plan.md")
    assert answers == ['read_file -> {"text": "v2"}']
    assert (await load(runner)).state["file:plan.md"] == "v2"
    # back to before the very first turn: the initial state, no files
    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=one)
    session = await load(runner)
    assert {k: v for k, v in session.state.items() if not k.startswith("user:")} == {"start": 1}
    _, answers = await say(runner, "read plan.md")
    assert answers == ['read_file -> {"text": null}']
    assert seen_texts(runner.agent.model.requests[-2]) == ["read plan.md"]


async def test_unknown_or_rewound_invocation_writes_nothing(runner):
    one, _ = await say(runner, "write plan.md v1")
    two, _ = await say(runner, "hello")
    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=two)
    before = await load(runner)
    for target in ("e-nope", two):
        with pytest.raises(InvocationNotFoundError):
            await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=target)
    after = await load(runner)
    assert after.version == before.version
    assert (await runner.artifact_service.list_versions(
        app_name=APP, user_id=USER, session_id=SESSION, filename="plan.md")) == [0]


async def test_a_cold_runner_and_another_writer_see_the_rewind(shared_store_url):
    """Runner A holds the session in its cache; runner B (its own services, as another process
    would have) rewinds; A's next turn notices and runs on the rewound timeline."""
    a = make_runner(shared_store_url)
    await a.session_service.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    await say(a, "write plan.md first")
    bad, _ = await say(a, "write plan.md second")
    b = make_runner(shared_store_url)
    await b.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=bad)
    _, answers = await say(a, "read plan.md")
    assert answers == ['read_file -> {"text": "first"}']
    assert "write plan.md second" not in seen_texts(a.agent.model.requests[-2])
    # and a brand-new runner on the store agrees
    c = make_runner(shared_store_url)
    session = await load(c)
    assert session.state["file:plan.md"] == "first"
    said = ["write plan.md first", "write plan.md second", "read plan.md"]
    assert [e.text() for e in session.events if e.author == "user" and e.text()] == said
    assert [e.text() for e in session.filter_events() if e.author == "user" and e.text()] == [said[0], said[2]]
    for r in (a, b, c):
        await r.close()
        await r.session_service.close()


async def test_rewind_without_an_artifact_service(store_url):
    sessions = session_service_from_url(store_url)
    runner = make_runner((sessions, None), model=ScriptedLlm([brain], cycle=True))
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    first, _ = await say(runner, "hi")
    await say(runner, "there")
    await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=first)
    assert (await load(runner)).events[-1].actions.rewind_before_invocation_id == first
    await sessions.close()


# -- property: a rewind lands exactly where time travel says the session was ------------------

turn_plans = st.lists(
    st.lists(st.tuples(st.sampled_from(["a", "b", "c", "user:u", "temp:t"]), st.integers(0, 5)), max_size=3),
    min_size=1,
    max_size=6,
)


def state_writer(request: LlmRequest) -> Any:
    last = request.contents[-1].parts[-1]
    if last.function_response is not None:
        return "ok"
    return ScriptedLlm.call("set_keys", pairs=last.text or "[]")


def set_keys(pairs: str, tool_context: ToolContext) -> str:
    """Sets state keys from a JSON list of [key, value] pairs."""
    for key, value in json.loads(pairs):
        tool_context.state[key] = value
    return "ok"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plans=turn_plans, data=st.data())
async def test_rewinding_to_any_invocation_yields_state_at_before_it(store_url, plans, data):
    sessions = session_service_from_url(store_url)  # one store for every example: fresh session ids
    agent = LlmAgent(name="setter", model=ScriptedLlm([state_writer], cycle=True), tools=[set_keys])
    runner = Runner(app_name=APP, agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name=APP, user_id=USER, state={"a": -1})
    invocations, seen_before = [], []
    for plan in plans:
        current = await load(runner, session.id)
        seen_before.append({k: v for k, v in current.state.items() if not k.startswith(("user:", "app:"))})
        invocation, _ = await say(runner, json.dumps(plan), session_id=session.id)
        invocations.append(invocation)
    target = data.draw(st.integers(0, len(plans) - 1))
    travel = TimeTravel(sessions.store)
    expected = travel.state_at((APP, USER, session.id), At.before(invocations[target])).state
    await runner.rewind_async(user_id=USER, session_id=session.id, rewind_before_invocation_id=invocations[target])
    rewound = await load(runner, session.id)
    assert {k: v for k, v in rewound.state.items() if not k.startswith(("user:", "app:"))} == expected
    assert expected == seen_before[target]
    await runner.close()
    await sessions.close()


REWIND_IN_ANOTHER_PROCESS = """
import asyncio, sys
sys.path.insert(0, {repo!r})
from runtime import LlmAgent, Runner, ScriptedLlm, session_service_from_url
from runtime.artifacts import LogArtifactService

async def main():
    sessions = session_service_from_url(sys.argv[1])
    runner = Runner(app_name={app!r}, agent=LlmAgent(name="scribe", model=ScriptedLlm(["-"])),
                    session_service=sessions, artifact_service=LogArtifactService(sessions.store))
    marker = await runner.rewind_async(user_id={user!r}, session_id={session!r}, rewind_before_invocation_id=sys.argv[2])
    print(marker.invocation_id)
    await sessions.close()

asyncio.run(main())
"""


async def test_a_rewind_in_another_process(shared_store_url, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    runner = make_runner(shared_store_url)
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    await say(runner, "write plan.md kept")
    bad, _ = await say(runner, "write plan.md dropped")
    script = tmp_path / "rewind.py"
    script.write_text(REWIND_IN_ANOTHER_PROCESS.format(
        repo=str(Path(__file__).resolve().parent.parent), app=APP, user=USER, session=SESSION))
    done = subprocess.run([sys.executable, str(script), shared_store_url, bad], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # this process's runner (which holds the session in its cache) goes on from the rewound timeline
    _, answers = await say(runner, "read plan.md")
    assert answers == ['read_file -> {"text": "kept"}']
    assert "write plan.md dropped" not in seen_texts(runner.agent.model.requests[-2])
    session = await load(runner)
    assert session.state["file:plan.md"] == "kept"
    assert any(e.invocation_id == done.stdout.strip() for e in session.events)
    await runner.close()
    await runner.session_service.close()


async def test_state_before_a_target_is_read_past_snapshots_without_the_invocation_index(store_url):
    """The session service computes a rewind's restored state from the nearest snapshot's state
    and artifacts plus the events after it; it must agree with a full replay of the aggregate at
    every version, rewinds (and rewound rewinds) in between included."""
    from domain import Event, EventActions
    from domain.session_log import session_log_id
    from runtime.sessions.session_logs import SessionLogs

    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name=APP, user_id=USER, session_id="long", state={"init": 0})
    for i in range(230):
        delta = {"n": i, f"k{i % 7}": i, "user:seen": i}
        if i % 11 == 0:
            delta["gone"] = None
        await sessions.append_event(session, Event(author="a", invocation_id=f"e-{i}",
                                                   actions=EventActions(state_delta=delta,
                                                                        artifact_delta={f"f{i % 3}.txt": i})))
        if i in (60, 150, 220):
            marker = await sessions.rewind_session(app_name=APP, user_id=USER, session_id="long",
                                                   rewind_before_invocation_id=f"e-{i - 4}")
            if i == 150:  # and undo it again
                await sessions.rewind_session(app_name=APP, user_id=USER, session_id="long",
                                              rewind_before_invocation_id=marker.invocation_id)
            session = await sessions.get_session(app_name=APP, user_id=USER, session_id="long")
    log_id = session_log_id(APP, USER, "long")
    app = sessions.store.application
    live = app.repository.get(log_id)
    logs = SessionLogs(sessions.store)
    assert live.version > 2 * 100  # past two snapshots
    for version in range(2, live.version + 1, 3):
        fast = logs.state_at(live, version)
        slow = app.repository.get(log_id, version=version)
        assert (fast.state, fast.artifacts) == (slow.state, slow.artifacts), version
    await sessions.close()


async def test_the_files_a_rewind_touched_are_found_when_it_is_no_longer_the_newest_event(store_url):
    from domain import Event, EventActions
    from runtime.rewind import rewound_artifact_versions

    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name=APP, user_id=USER, session_id="s")
    for i, delta in enumerate(({"a.txt": 0}, {"a.txt": 1, "b.txt": 0}, {"user:c.txt": 0})):
        await sessions.append_event(session, Event(author="m", invocation_id=f"e-{i}", actions=EventActions(artifact_delta=delta)))
    marker = await sessions.rewind_session(app_name=APP, user_id=USER, session_id="s", rewind_before_invocation_id="e-1")
    expected = {"a.txt": 0, "b.txt": None}  # user: files are shared, not rolled back
    kwargs = dict(app_name=APP, user_id=USER, session_id="s", marker=marker)
    assert await rewound_artifact_versions(sessions, **kwargs) == expected
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id="s")
    await sessions.append_event(session, Event(author="m", invocation_id="e-9"))
    assert await rewound_artifact_versions(sessions, **kwargs) == expected
    await sessions.close()
