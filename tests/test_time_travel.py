"""Time travel on every store: state_at (event id, invocation before/after, timestamp, version),
diff, and the history timeline — with other sessions writing shared state in between, rewinds
and forks."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import InvalidArgumentError, InvocationNotFoundError, SessionNotFoundError
from domain.session_log import session_log_id
from projections import SCOPED_STATE, SESSION_STATE, fold_events, fold_one
from runtime.read_models import MISSING, At, LogSource, TimeTravel
from runtime.sessions import session_service_from_url
from tests.test_projections_support import event


async def conversation(service):
    """Session s (three turns) of user u; session o of the same user writes user: and app: keys in between."""
    s = await service.create_session(app_name="app", user_id="u", session_id="s", state={"mood": "calm", "user:lang": "en"})
    o = await service.create_session(app_name="app", user_id="u", session_id="o")
    ids = []
    t0 = 1_800_000_000.0
    for i in range(3):
        first = event("user", f"i{i}", text=f"question {i}", delta={"turn": i, "app:hits": i}, timestamp=t0 + 10 * i)
        await service.append_event(s, first)
        ids.append(first.id)
        await service.append_event(s, event("agent", f"i{i}", call=(f"c{i}", "lookup", {"q": i}), usage=(100, 10), timestamp=t0 + 10 * i + 1))
        await service.append_event(s, event("agent", f"i{i}", result=(f"c{i}", "lookup", {"r": i * 10}), artifacts={"notes.md": i, "user:cv.pdf": i}, timestamp=t0 + 10 * i + 2))
        await service.append_event(s, event("agent", f"i{i}", text=f"answer {i}", delta={"answer": i}, usage=(120, 30), timestamp=t0 + 10 * i + 3))
        await service.append_event(o, event("user", f"o{i}", delta={"user:lang": f"l{i}", "app:hits": 100 + i}, timestamp=t0 + 10 * i + 5))
    return s, o, ids, t0


async def test_state_at_an_event_an_invocation_a_time_and_a_version(service):
    s, _, ids, t0 = await conversation(service)
    travel = TimeTravel(service.store)

    at = travel.state_at(s, At.event(ids[1]))  # the question of turn 1 was just recorded
    assert at.state == {"mood": "calm", "turn": 1, "answer": 0}
    assert at.app_state == {"app:hits": 1}  # written by this event; o wrote 100 before it
    assert at.user_state == {"user:lang": "l0"}  # o's write of turn 0
    assert at.artifacts == {"notes.md": 0} and at.user_artifacts == {"user:cv.pdf": 0}
    assert (at.event_id, at.author, at.invocation_id) == (ids[1], "user", "i1")
    assert at.session_state == {**at.state, **at.app_state, **at.user_state}

    before = travel.state_at(s, At.before("i1"))
    after = travel.state_at(s, At.after("i1"))
    assert before.state == {"mood": "calm", "turn": 0, "answer": 0} and before.user_state == {"user:lang": "l0"}
    assert before.app_state == {"app:hits": 100}
    assert after.state == {"mood": "calm", "turn": 1, "answer": 1} and after.artifacts == {"notes.md": 1}
    assert after.version == before.version + 4

    between = travel.state_at(s, At.time(t0 + 12.5))  # after turn 1's tool result, before its answer
    assert between.state == {"mood": "calm", "turn": 1, "answer": 0} and between.artifacts == {"notes.md": 1}
    assert travel.state_at(s, At.time(t0 + 13)).state == after.state
    assert travel.state_at(s, At.time(t0 - 1e-3 + 10)).state["turn"] == 0
    assert travel.state_at(s, At.log_version(1)).state == {"mood": "calm"}
    assert travel.state_at(s, At.log_version(1)).user_state == {"user:lang": "en"}
    latest = travel.state_at(s)
    loaded = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert latest.session_state == loaded.state and latest.version == loaded.version
    # loose positions: an event id, a timestamp, a version
    assert travel.state_at(("app", "u", "s"), ids[2]).version == travel.state_at(s, At.event(ids[2])).version
    assert travel.state_at(s, 1).state == {"mood": "calm"}
    assert (await travel.state_at_async(s, At.after("i2"))).state == latest.state


async def test_state_at_refuses_what_does_not_exist(service):
    s, _, _, t0 = await conversation(service)
    travel = TimeTravel(service.store)
    with pytest.raises(SessionNotFoundError):
        travel.state_at(("app", "u", "nope"), At.latest())
    with pytest.raises(InvalidArgumentError, match="no event"):
        travel.state_at(s, At.event("not-an-event"))
    with pytest.raises(InvocationNotFoundError):
        travel.state_at(s, At.before("not-an-invocation"))
    with pytest.raises(InvalidArgumentError, match="created"):
        travel.state_at(s, At.time(t0 - 1e9))
    with pytest.raises(InvalidArgumentError, match="versions"):
        travel.state_at(s, At.log_version(999))
    with pytest.raises(InvalidArgumentError):
        travel.state_at(s, [1])  # type: ignore[arg-type]


async def test_state_at_a_time_is_after_the_last_event_at_or_before_it(service):
    # Ties, long gaps and tiny ones: the store's own search (PostgreSQL, SQLite) and the probing
    # one (every store) both give the last version whose event is at or before the time.
    s = await service.create_session(app_name="app", user_id="u", session_id="timed")
    t0, stamps = 1_800_000_000.0, []
    gaps = [0.0, 1.0, 0.0, 0.0, 2.5, 0.001, 3600.0, 0.0, 7.0, 0.25]
    for i in range(41):
        stamps.append(t0 + sum(gaps[j % len(gaps)] for j in range(i)))
        await service.append_event(s, event(invocation=f"i{i // 3}", delta={"n": i}, timestamp=stamps[-1]))
    travel = TimeTravel(service.store)
    log_id = session_log_id("app", "u", "timed")
    log = travel.application.repository.get(log_id)
    queries = [*stamps, *(t + 1e-4 for t in stamps), *(t - 1e-4 for t in stamps[1:]), stamps[-1] + 10.0, log.created_time]
    for t in queries:
        expected = 1 + sum(1 for stamp in stamps if stamp <= t)  # genesis, then the events up to t
        at = travel.state_at(s, At.time(t))
        assert at.version == expected, t
        assert travel._version_at_time(log_id, log, t, ("app", "u", "timed")) == expected  # noqa: SLF001
        assert at.state == ({"n": expected - 2} if expected > 1 else {})
    with pytest.raises(SessionNotFoundError):
        travel.state_at(("app", "u", "nope"), At.time(t0))
    with pytest.raises(InvalidArgumentError, match="created"):
        travel.state_at(s, At.time(log.created_time - 1))


async def test_diff_names_every_change_with_its_writers(service):
    s, o, ids, _ = await conversation(service)
    travel = TimeTravel(service.store)
    diff = travel.diff(s, At.after("i0"), At.after("i2"))
    changes = {(c.scope, c.key): c for c in diff.changes}
    assert changes[("session", "turn")].before == 0 and changes[("session", "turn")].after == 2
    assert [w.value for w in changes[("session", "turn")].writes] == [1, 2]
    assert changes[("session", "turn")].writes[0].event_id == ids[1]
    assert ("session", "mood") not in changes
    lang = changes[("user", "user:lang")]
    assert (lang.before, lang.after) == ("en", "l1")  # o wrote l0 after i0 and l2 after i2
    assert {w.session for w in lang.writes} == {"app/u/o"} and [w.value for w in lang.writes] == ["l0", "l1"]
    hits = changes[("app", "app:hits")]
    assert [w.value for w in hits.writes] == [100, 1, 101, 2] and (hits.before, hits.after) == (0, 2)
    assert (changes[("artifact", "notes.md")].before, changes[("artifact", "notes.md")].after) == (0, 2)
    assert changes[("user_artifact", "user:cv.pdf")].after == 2
    assert diff.events == 8
    new_key = travel.diff(s, At.log_version(1), At.after("i0"))
    answer = {(c.scope, c.key): c for c in new_key.changes}[("session", "answer")]
    assert answer.before is MISSING and answer.after == 0
    text = diff.format()
    assert "user state user:lang" in text and "in session o" in text


async def test_history_is_a_timeline_of_invocations(service):
    s, _, ids, t0 = await conversation(service)
    timeline = TimeTravel(service.store).history(s)
    assert [inv.invocation_id for inv in timeline.invocations] == ["i0", "i1", "i2"]
    inv = timeline.invocations[1]
    assert inv.authors == ["user", "agent"] and inv.duration_ms == pytest.approx(3000)
    question, call, result, answer = inv.steps
    assert question.text == "question 1" and question.state_keys == ["turn", "app:hits"]
    assert call.tool_calls[0].name == "lookup" and call.tool_calls[0].args == {"q": 1}
    assert call.usage == {"prompt": 100, "candidates": 10, "total": 110} and call.latency_ms == pytest.approx(1000)
    assert result.tool_results[0].response == {"r": 10} and not result.tool_results[0].error
    assert result.artifacts == {"notes.md": 1, "user:cv.pdf": 1}
    assert inv.usage == {"prompt": 220, "candidates": 40, "total": 260}
    text = timeline.format()
    assert "question 1" in text and "→ lookup" in text and "← lookup" in text


async def test_history_marks_rewound_turns_and_state_at_sees_through_rewinds(service):
    s = await service.create_session(app_name="app", user_id="u", session_id="s", state={"a": 0})
    for i in range(3):
        await service.append_event(s, event("user", f"i{i}", text=str(i), delta={"a": i + 1}, artifacts={"f.txt": i}))
    marker = await service.rewind_session(app_name="app", user_id="u", session_id="s", rewind_before_invocation_id="i1")
    travel = TimeTravel(service.store)
    timeline = travel.history(s)
    assert [(inv.invocation_id, inv.rewound) for inv in timeline.invocations] == [
        ("i0", False), ("i1", True), ("i2", True), (marker.invocation_id, False)]
    now = travel.state_at(s)
    assert now.state == {"a": 1} and now.artifacts == {"f.txt": 0} and now.event_id == marker.id
    assert travel.state_at(s, At.after("i2")).state == {"a": 3}  # the past is still there
    # rewinding the rewind brings the turns back
    await service.rewind_session(app_name="app", user_id="u", session_id="s", rewind_before_invocation_id=marker.invocation_id)
    timeline = travel.history(s)
    assert [inv.rewound for inv in timeline.invocations][:4] == [False, False, False, True]
    assert travel.state_at(s).state == {"a": 3}
    assert "REWOUND" in timeline.format()


async def test_a_fork_has_its_own_past(service):
    s = await service.create_session(app_name="app", user_id="u", session_id="s")
    for i in range(3):
        await service.append_event(s, event("user", f"i{i}", delta={"a": i, "user:n": i}))
    fork = await service.fork_session(app_name="app", user_id="u", session_id="s", at_invocation_id="i2", new_session_id="f")
    travel = TimeTravel(service.store)
    timeline = travel.history(fork)
    assert [inv.invocation_id for inv in timeline.invocations] == ["i0", "i1"]
    assert all(inv.copied for inv in timeline.invocations) and timeline.forked_from["source_session_id"] == "s"
    assert travel.state_at(fork).state == {"a": 1}
    assert travel.state_at(fork).user_state == {"user:n": 2}  # shared: the fork did not write it again


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(turns=st.lists(st.tuples(st.sampled_from(["a", "b", "app:x", "user:y"]), st.integers(0, 9)), min_size=1, max_size=12),
       other=st.lists(st.booleans(), min_size=12, max_size=12))
async def test_state_at_every_version_equals_folding_the_log_up_to_it(store_url, turns, other):
    service = session_service_from_url(store_url)
    try:
        import uuid

        app = f"tt{uuid.uuid4().hex[:8]}"
        s = await service.create_session(app_name=app, user_id="u", state={"a": -1})
        o = await service.create_session(app_name=app, user_id="u")
        for i, (key, value) in enumerate(turns):
            await service.append_event(s, event("user", f"i{i}", delta={key: value}))
            if other[i]:
                await service.append_event(o, event("user", f"o{i}", delta={"app:x": -value, "user:y": -value}))
        travel = TimeTravel(service.store)
        source = LogSource(service.store)
        everything, position = [], 0
        while True:
            batch, position2 = source.read(position, 1000)
            if position2 == position:
                break
            everything, position = everything + batch, position2
        log_id = session_log_id(app, "u", s.id)
        own = source.session_events(log_id)
        for version in range(1, len(own) + 1):
            at = travel.state_at(s, At.log_version(version))
            assert at.state == fold_one(SESSION_STATE, own[:version], f"{app}/u/{s.id}")
            upto = [e for e in everything if e.position <= at.position]
            views = fold_events(SCOPED_STATE, upto)
            assert at.app_state == views.get(("app_state", app), {})
            assert at.user_state == views.get(("user_state", f"{app}/u"), {})
    finally:
        await service.close()
