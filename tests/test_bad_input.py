"""No input poisons a store: every bad input is refused with a typed error and writes nothing, or
is stored and read back exactly, with the same answer on memory, SQLite and PostgreSQL.

A hypothesis fuzz appends bad events (changed after they were built, nested too deep, with huge
integers, NaN, lone surrogates, NUL in text, keys and ids, long or blank ids …) and inputs at the
edge of the limits (domain/validation.py) to one session per store. After each, the session reads
back as it was (or with exactly the event appended), and after the run the store-wide reads —
listing sessions, verify, history, memory search — still work for everyone.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from typing import Any, Callable

import pytest
from google.genai import types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.errors import InvalidArgumentError
from domain.events import EVENT_FRAME, Event, EventActions
from domain.validation import MAX_DEPTH, MAX_ID_LENGTH
from runtime.memory import LogMemoryService
from runtime.operations.audit import logs_to_check, verify_store
from runtime.read_models import TimeTravel
from runtime.sessions import session_service_from_url

EXAMPLES = 60


def nested(depth: int, leaf: Any = 1) -> Any:
    """A value with ``depth`` levels of lists and objects around ``leaf``."""
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def fresh_event() -> Event:
    call = types.Part(function_call=types.FunctionCall(name="lookup", args={"q": "x"}))
    return Event(
        author="agent", invocation_id="e-fuzz",
        content=types.Content(role="model", parts=[types.Part(text="hello"), call]),
        actions=EventActions(state_delta={"count": 1}),
    )


@dataclass
class Case:
    """One input: how to spoil (or stretch) a fresh event, and whether every store must refuse it."""

    name: str
    change: Callable[[Event], None]
    refused: bool


def _where(path: str, value: Any) -> Callable[[Event], None]:
    """Puts ``value`` at one of the places an event carries free-form JSON."""

    def put(event: Event) -> None:
        if path == "state":
            event.actions.state_delta = {"v": value}
        elif path == "state_key":
            event.actions.state_delta = {value: 1}
        elif path == "metadata":
            event.custom_metadata = {"v": value}
        elif path == "metadata_key":
            event.custom_metadata = {value: 1}
        elif path == "args":
            event.content.parts[1].function_call.args = {"v": value}
        elif path == "output":
            event.output = value
        elif path == "text":
            event.content.parts[0].text = value
        else:
            raise AssertionError(path)

    return put


TEXT_PLACES = ["state", "metadata", "args", "output", "text"]
VALUE_PLACES = ["state", "metadata", "args", "output"]
KEY_PLACES = ["state_key", "metadata_key"]

bad_values = st.one_of(
    # deeper than any place allows: the event's own structure around a value does not count
    st.builds(lambda d: ("nested", nested(d)), st.integers(MAX_DEPTH + EVENT_FRAME + 1, 400)),
    st.sampled_from([("huge int", 10**5000), ("int64 + 1", 2**63), ("int64 - 1", -(2**63) - 1),
                     ("NaN", math.nan), ("Infinity", math.inf), ("-Infinity", -math.inf)]),
    st.builds(lambda t: ("NUL", f"a{t}\x00b"), st.text(max_size=5)),
    st.builds(lambda t: ("surrogate", t + "\ud800"), st.text(max_size=5)),
)
bad_texts = st.one_of(
    st.builds(lambda t: ("NUL", t + "\x00"), st.text(max_size=5)),
    st.sampled_from([("surrogate", "\udfff"), ("surrogate", "x\ud83d")]),
)
bad_ids = st.one_of(
    st.sampled_from(["", " ", "\t", " padded", "a\x00b", "a\nb", "\ud800", None, 7]),
    st.integers(MAX_ID_LENGTH + 1, 10_000).map(lambda n: "x" * n),
)
fine_values = st.one_of(
    st.builds(lambda d: ("nested to the limit", nested(d)), st.integers(MAX_DEPTH - 3, MAX_DEPTH)),
    st.sampled_from([("int64 max", 2**63 - 1), ("int64 min", -(2**63)), ("float", 1e308), ("-0.0", -0.0)]),
    st.builds(lambda t: ("unicode", t), st.text(alphabet=st.characters(blacklist_categories=("Cs",),
                                                                          blacklist_characters="\x00"))),
)


def _mutation(kind: str, value: Any) -> Callable[[Event], None]:
    def change(event: Event) -> None:
        if kind == "author":
            event.author = value
        elif kind == "content":
            event.content = value
        elif kind == "artifact_delta":
            event.actions.artifact_delta = {"report.pdf": value}
        elif kind == "timestamp":
            event.timestamp = value
        elif kind == "long_running_tool_ids":
            event.long_running_tool_ids = value
        elif kind == "id":
            event.id = value
        elif kind == "invocation_id":
            event.invocation_id = value

    return change


changed_after_build = st.sampled_from([
    ("author", None), ("author", 5), ("content", "hi"), ("content", 5), ("artifact_delta", "v1"),
    ("artifact_delta", 1.5), ("artifact_delta", None), ("timestamp", None), ("timestamp", "now"),
    ("timestamp", math.nan), ("long_running_tool_ids", {1}), ("invocation_id", None),
    ("invocation_id", "a\x00"), ("invocation_id", "x" * (MAX_ID_LENGTH + 1)),
])

cases = st.one_of(
    st.builds(lambda m: Case(f"{m[0]} = {m[1]!r:.40} after build", _mutation(*m), True), changed_after_build),
    st.builds(lambda v, p: Case(f"{v[0]} in {p}", _where(p, v[1]), True), bad_values, st.sampled_from(VALUE_PLACES)),
    st.builds(lambda v, p: Case(f"{v[0]} text in {p}", _where(p, v[1]), True), bad_texts, st.sampled_from(TEXT_PLACES)),
    st.builds(lambda v, p: Case(f"{v[0]} in a key of {p}", _where(p, v[1]), True), bad_texts, st.sampled_from(KEY_PLACES)),
    st.builds(lambda i: Case(f"event id {i!r:.40}", _mutation("id", i), True), bad_ids),
    st.builds(lambda v, p: Case(f"{v[0]} in {p}", _where(p, v[1]), False), fine_values, st.sampled_from(VALUE_PLACES)),
    st.builds(lambda n: Case(f"an id of {n} characters", _mutation("id", "i" * n), False),
              st.integers(MAX_ID_LENGTH - 2, MAX_ID_LENGTH)),
)


def run(coroutine: Any) -> Any:
    return asyncio.get_event_loop().run_until_complete(coroutine)


@pytest.fixture
def loop():
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    loop.close()
    asyncio.set_event_loop(None)


def _stored(session: Any) -> list[dict[str, Any]]:
    return [e.to_json_dict() for e in session.events]


def test_bad_events_are_refused_and_leave_the_store_whole(store_url, loop):
    sessions = session_service_from_url(store_url)
    memory = LogMemoryService(sessions.store)
    other = run(sessions.create_session(app_name="fuzz", user_id="bob", session_id="bystander",
                                        state={"user:plan": "pro"}))
    run(sessions.append_event(other, Event(author="user", invocation_id="e-0",
                                           content=types.Content(role="user", parts=[types.Part(text="cats")]))))
    session = run(sessions.create_session(app_name="fuzz", user_id="ann", session_id="target"))
    outcomes: dict[str, str] = {}

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(case=cases)
    def append_one(case: Case) -> None:
        before = run(sessions.get_session(app_name="fuzz", user_id="ann", session_id="target"))
        event = fresh_event()
        case.change(event)
        holder = run(sessions.get_session(app_name="fuzz", user_id="ann", session_id="target"))
        try:
            returned = run(sessions.append_event(holder, event))
        except InvalidArgumentError as refused:
            assert case.refused, f"{case.name}: refused, but every store keeps it ({refused})"
            assert "\n" not in str(refused).strip() and len(str(refused)) < 2_000
            after = run(sessions.get_session(app_name="fuzz", user_id="ann", session_id="target"))
            assert after.last_update_time == before.last_update_time and _stored(after) == _stored(before), case.name
            outcomes[case.name] = "refused"
            return
        assert not case.refused, f"{case.name}: stored, but every store must refuse it"
        after = run(sessions.get_session(app_name="fuzz", user_id="ann", session_id="target"))
        assert _stored(after) == _stored(before) + [returned.to_json_dict()], case.name
        outcomes[case.name] = "kept"

    append_one()
    assert {"refused", "kept"} <= set(outcomes.values())

    # Store-wide reads still work, for the fuzzed user and everyone else.
    listed = run(sessions.list_sessions(app_name="fuzz"))
    assert sorted(s.id for s in listed.sessions) == ["bystander", "target"]
    store = sessions.store
    report = verify_store(store, logs_to_check(store))
    assert report.ok, report.broken
    timeline = TimeTravel(store).history(("fuzz", "ann", "target"))
    assert timeline is not None
    target = run(sessions.get_session(app_name="fuzz", user_id="ann", session_id="target"))
    run(memory.add_session_to_memory(target))
    run(memory.add_session_to_memory(run(sessions.get_session(app_name="fuzz", user_id="bob", session_id="bystander"))))
    found = run(memory.search_memory(app_name="fuzz", user_id="bob", query="cats"))
    assert [m.content.parts[0].text for m in found.memories] == ["cats"]
    run(memory.search_memory(app_name="fuzz", user_id="ann", query="hello"))
    run(sessions.close())


@pytest.mark.parametrize("state", [
    {"v": nested(MAX_DEPTH + 1)}, {"v": 10**5000}, {"v": math.nan}, {"v": "\ud800"}, {"v": "a\x00"},
    {"a\x00": 1}, {"user:v": {"k": math.inf}}, {"app:v": [2**64]},
])
def test_bad_initial_state_is_refused_and_creates_nothing(store_url, loop, state):
    sessions = session_service_from_url(store_url)
    with pytest.raises(InvalidArgumentError):
        run(sessions.create_session(app_name="fuzz", user_id="ann", session_id="s", state=state))
    assert run(sessions.get_session(app_name="fuzz", user_id="ann", session_id="s")) is None
    assert run(sessions.list_sessions(app_name="fuzz")).sessions == []
    assert run(sessions.get_user_state(app_name="fuzz", user_id="ann")) == {}
    run(sessions.close())


def test_state_at_the_limits_reads_back_exactly_on_every_store(store_url, loop):
    state = {"deep": nested(MAX_DEPTH), "big": 2**63 - 1, "small": -(2**63), "text": "héllo 🌍 \u2028",
             "user:deep": nested(MAX_DEPTH - 1)}
    sessions = session_service_from_url(store_url)
    run(sessions.create_session(app_name="fuzz", user_id="ann", session_id="s", state=state))
    again = session_service_from_url(store_url) if not store_url.startswith("memory") else sessions
    loaded = run(again.get_session(app_name="fuzz", user_id="ann", session_id="s"))
    assert loaded.state == state
    listed = run(again.list_sessions(app_name="fuzz")).sessions
    assert listed[0].state == state
    for service in {id(sessions): sessions, id(again): again}.values():
        run(service.close())


def test_a_blank_event_id_cannot_make_another_event_vanish(store_url, loop):
    """Blanked ids once let the store take a second, different event for a duplicate of the first."""
    sessions = session_service_from_url(store_url)
    session = run(sessions.create_session(app_name="fuzz", user_id="ann", session_id="s"))
    first, second = Event(author="user", invocation_id="e-1"), Event(author="agent", invocation_id="e-1")
    first.id = second.id = ""
    for event in (first, second):
        with pytest.raises(InvalidArgumentError, match="event id"):
            run(sessions.append_event(session, event))
    assert run(sessions.get_session(app_name="fuzz", user_id="ann", session_id="s")).events == []
    run(sessions.close())


def test_events_handed_to_memory_directly_are_checked_too(store_url, loop):
    memory = LogMemoryService(session_service_from_url(store_url).store, owns_store=True)
    bad = Event(author="user", content=types.Content(role="user", parts=[types.Part(text="cat\x00s")]))
    with pytest.raises(InvalidArgumentError, match="NUL"):
        run(memory.add_events_to_memory(app_name="fuzz", user_id="ann", events=[bad]))
    good = Event(author="user", content=types.Content(role="user", parts=[types.Part(text="cats")]))
    run(memory.add_events_to_memory(app_name="fuzz", user_id="ann", events=[good]))
    found = run(memory.search_memory(app_name="fuzz", user_id="ann", query="cats"))
    assert [m.content.parts[0].text for m in found.memories] == ["cats"]
    run(memory.close())
