"""Projections: the pure folds, and the tracked read models on every store (memory, SQLite,
PostgreSQL) — equal to the session service, exactly once, caught up, followed, rebuilt.

The property test drives random conversations (appends with state in every scope, artifacts,
tool calls and errors, rewinds, forks, deletions) through the session service, catches the
live read models up at random points in random batch sizes (with caches so small that views
keep being reloaded from their rows), then checks for every projection: live rows == the rows
of a rebuild == the in-memory fold of the whole log, and scoped state == the session service.
"""

from __future__ import annotations

import gc
import os
import threading
import time
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.session_log import session_log_id
from domain.state import split_scopes
from projections import (
    ANALYTICS,
    APP_STATE,
    ARTIFACTS,
    SCOPED_STATE,
    SESSION_ARTIFACTS,
    SESSION_STATE,
    USER_STATE,
    Fold,
    Projection,
    fold_events,
    fold_one,
)
from projections.log_event import CREATED, RECORDED, REWOUND, LogEvent
from runtime.read_models import LogSource, ProjectionFollower, Projector, storage_for
from runtime.read_models.follower import ItemDict
from runtime.sessions import session_service_from_url
from tests.test_projections_support import canonical, event, reference, stored

TRACKED = [SCOPED_STATE, ARTIFACTS, ANALYTICS]


def shadow(projection: Projection) -> Projection:
    """The same folds under another name: rebuilt next to the live one, rows compared."""
    return Projection(projection.name + "_rebuilt", folds=projection.folds)


def rows_without_name(runner: ProjectionFollower) -> Any:
    return canonical(runner.rows())


# -- pure folds -----------------------------------------------------------------------------


def log_event(kind: str, version: int, data: dict | None = None, meta: dict | None = None, **kw: Any) -> LogEvent:
    ids = {"app_name": kw.pop("app", "app"), "user_id": kw.pop("user", "u"), "session_id": kw.pop("session", "s")}
    return LogEvent(kind, ids["app_name"], ids["user_id"], ids["session_id"], version, kw.pop("ts", 1.0),
                    data or {}, meta=meta or {}, **kw)


def recorded(version: int, delta: dict | None = None, artifacts: dict | None = None, **kw: Any) -> LogEvent:
    data = {"id": f"e{version}", "author": "user", "invocation_id": "i", "timestamp": 1.0,
            "actions": {"state_delta": delta or {}, "artifact_delta": artifacts or {}}}
    return log_event(RECORDED, version, data, **kw)


def test_state_folds_route_each_scope_and_keep_the_domain_rules():
    events = [
        log_event(CREATED, 1, meta={"state": {"a": 1, "app:x": 1, "user:p": 1}}),
        recorded(2, {"a": None, "d": {"k": 1}, "app:x": 2, "user:p": {"z": 1}}),
        recorded(3, {"d": {"l": 2}, "user:p": None}, user="v"),
    ]
    assert fold_one(SESSION_STATE, events, "app/u/s") == {"a": None, "d": {"k": 1}}  # None stored
    assert fold_one(APP_STATE, events, "app") == {"app:x": 2}
    assert fold_one(USER_STATE, events, "app/u") == {"user:p": {"z": 1}}
    assert fold_one(USER_STATE, events, "app/v") == {"user:p": None}
    views = fold_events(SCOPED_STATE, events)
    assert set(views) == {("app_state", "app"), ("user_state", "app/u"), ("user_state", "app/v")}


_KEYS = st.sampled_from(["a", "b", "app:a", "app:b", "user:a", "user:", "app:", "temp:a", "ap:x", "users:a"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(_KEYS, st.one_of(st.none(), st.integers(), st.text(max_size=3))), max_size=6))
def test_an_events_scoped_delta_is_the_domains_split(deltas):
    # The projections' scopes are the domain's: one rule, in domain.state.
    for i, delta in enumerate(deltas):
        scoped = recorded(i + 2, delta).scoped_delta
        expected = split_scopes(delta)
        assert [list(d.items()) for d in (scoped.app, scoped.user, scoped.session)] == [
            list(d.items()) for d in (expected.app, expected.user, expected.session)
        ]


def test_rewind_restores_session_state_and_artifacts_but_not_shared_scopes():
    marker = {"id": "m", "author": "user", "invocation_id": "r", "timestamp": 2.0,
              "actions": {"rewind_before_invocation_id": "i", "state_delta": {"a": 1}}}
    events = [
        log_event(CREATED, 1, meta={"state": {"a": 1}}),
        recorded(2, {"a": 2, "user:p": 2}, {"f.txt": 0, "user:g": 0}),
        log_event(REWOUND, 3, marker, {"start_version": 2, "restored_state": {"a": 1}, "restored_artifacts": {}}),
    ]
    assert fold_one(SESSION_STATE, events, "app/u/s") == {"a": 1}
    assert fold_one(USER_STATE, events, "app/u") == {"user:p": 2}
    assert fold_one(SESSION_ARTIFACTS, events, "app/u/s") == {}
    assert fold_one(ARTIFACTS.fold_named("user_artifacts"), events, "app/u") == {"user:g": 0}


def test_a_forks_copied_history_builds_its_state_but_writes_nothing_shared():
    copy = recorded(2, {"a": 5, "app:x": "old"}, {"f.txt": 3, "user:g": 1}, copied=True)
    assert fold_one(SESSION_STATE, [copy], "app/u/s") == {"a": 5}
    assert fold_one(SESSION_ARTIFACTS, [copy], "app/u/s") == {"f.txt": 3}
    assert fold_one(APP_STATE, [copy], "app") == {}
    assert fold_one(ARTIFACTS.fold_named("user_artifacts"), [copy], "app/u") == {}


def test_item_dict_notes_what_a_fold_set_and_removed():
    view = ItemDict({"a": 1, "b": 2})
    view.update({"a": 3})
    view["c"] = 4
    view.pop("b")
    assert view.changed == {"a": True, "c": True, "b": False}


def test_projection_names_and_folds_are_checked():
    with pytest.raises(ValueError):
        Projection("bad name!", lambda v, e: v)
    with pytest.raises(ValueError):
        Projection("empty")
    p = Projection("count", lambda v, e: v)
    assert [f.name for f in p.folds] == ["count"] and p.fold_named().name == "count"


# -- read models on every store -------------------------------------------------------------


async def test_scoped_state_read_model_equals_what_the_session_service_reports(service):
    a = await service.create_session(app_name="shop", user_id="ann", state={"app:plan": "pro", "user:name": "Ann", "n": 0})
    b = await service.create_session(app_name="shop", user_id="bob", state={"user:name": "Bob"})
    c = await service.create_session(app_name="blog", user_id="ann", state={"app:theme": "dark"})
    await service.append_event(a, event(delta={"app:plan": "max", "user:cart": [1], "n": 1, "temp:x": 9}, invocation="i1"))
    await service.append_event(b, event(delta={"user:cart": {"k": None}, "app:open": True}, invocation="i1"))
    await service.append_event(a, event(delta={"user:cart": None}, invocation="i2"))
    await service.append_event(c, event(delta={"user:name": "Ann B"}, invocation="i1"))
    await service.rewind_session(app_name="shop", user_id="ann", session_id=a.id, rewind_before_invocation_id="i1")
    await service.fork_session(app_name="shop", user_id="bob", session_id=b.id)  # copies app:open again
    await service.append_event(b, event(delta={"app:open": False}, invocation="i3"))

    projector = Projector(service.store)
    projector.catch_up()
    for app_name, user_id in [("shop", "ann"), ("shop", "bob"), ("blog", "ann"), ("shop", "nobody")]:
        expected = service.store.recorder.select_scoped(app_name, user_id)
        assert projector.scoped_state(app_name, user_id) == expected, (app_name, user_id)
    loaded = await service.get_session(app_name="shop", user_id="ann", session_id=a.id)
    scoped = {k: v for k, v in loaded.state.items() if k.startswith(("app:", "user:"))}
    assert projector.scoped_state("shop", "ann") == scoped == {"app:plan": "max", "app:open": False, "user:name": "Ann", "user:cart": None}
    assert projector.app_state("shop") == {"app:plan": "max", "app:open": False}
    for session in (await service.list_sessions(app_name="shop")).sessions:
        assert {k: v for k, v in session.state.items() if ":" in k} == projector.scoped_state("shop", session.user_id)


async def test_artifact_versions_per_session_and_per_user(service):
    s = await service.create_session(app_name="app", user_id="u", session_id="s1")
    t = await service.create_session(app_name="app", user_id="u", session_id="s2")
    await service.append_event(s, event(artifacts={"a.txt": 0, "user:cv.pdf": 0}, invocation="i1"))
    await service.append_event(s, event(artifacts={"a.txt": 1}, invocation="i2"))
    await service.append_event(t, event(artifacts={"user:cv.pdf": 1, "b.png": 0}, invocation="i1"))
    projector = Projector(service.store)
    projector.catch_up()
    assert projector.artifact_versions("app", "u", "s1") == {"a.txt": 1, "user:cv.pdf": 1}
    assert projector.artifact_versions("app", "u", "s2") == {"b.png": 0, "user:cv.pdf": 1}
    await service.rewind_session(app_name="app", user_id="u", session_id="s1", rewind_before_invocation_id="i2")
    projector.catch_up()
    assert projector.artifact_versions("app", "u", "s1") == {"a.txt": 0, "user:cv.pdf": 1}


# -- rebuild == live, by property, on every store -------------------------------------------

KEYS = st.sampled_from(["a", "b", "app:x", "app:y", "user:p", "user:q", "temp:t"])
VALUES = st.one_of(
    st.none(), st.integers(-3, 3), st.text("xy", max_size=2), st.booleans(),
    st.dictionaries(st.sampled_from(["k", "l"]), st.integers(0, 2), max_size=2), st.lists(st.integers(0, 1), max_size=2),
)
EVENT = st.fixed_dictionaries({
    "author": st.sampled_from(["user", "agent", "helper"]),
    "new_invocation": st.booleans(),
    "delta": st.dictionaries(KEYS, VALUES, max_size=3),
    "artifacts": st.dictionaries(st.sampled_from(["f.txt", "user:g.txt"]), st.integers(0, 3), max_size=2),
    "shape": st.sampled_from(["text", "call", "result", "error", "model_error"]),
    "usage": st.one_of(st.none(), st.tuples(st.integers(0, 50), st.integers(0, 50))),
    "gap": st.sampled_from([0.001, 0.2, 3.0, 4000.0, 90000.0]),  # seconds: latencies, idle cursors, days
})
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("create"), st.integers(0, 2), st.dictionaries(KEYS, VALUES, max_size=2)),
        st.tuples(st.just("append"), st.integers(0, 9), EVENT),
        st.tuples(st.just("append"), st.integers(0, 9), EVENT),
        st.tuples(st.just("append"), st.integers(0, 9), EVENT),
        st.tuples(st.just("rewind"), st.integers(0, 9), st.integers(0, 9)),
        st.tuples(st.just("fork"), st.integers(0, 9), st.one_of(st.none(), st.integers(0, 9))),
        st.tuples(st.just("delete"), st.integers(0, 9)),
        st.tuples(st.just("catch_up"), st.integers(1, 5)),
    ),
    min_size=1,
    max_size=30,
)


async def run_ops(service: Any, runners: list[ProjectionFollower], ops: list[tuple], app: str) -> list[tuple[str, str]]:
    """Applies the ops; returns the (app, user) pairs written."""
    sessions: list[Any] = []
    invocations: dict[str, list[str]] = {}
    clock = [1_700_000_000.0]
    call_ids: dict[str, str] = {}
    users: set[tuple[str, str]] = set()
    for op in ops:
        kind = op[0]
        if kind == "create" or (not sessions and kind != "catch_up"):
            user = f"u{op[1] if kind == 'create' else 0}"
            state = op[2] if kind == "create" else {}
            s = await service.create_session(app_name=app, user_id=user, state=state)
            sessions.append(s)
            invocations[s.id] = []
            users.add((app, user))
            if kind == "create":
                continue
        if kind == "catch_up":
            for runner in runners:
                runner.batch_size = op[1]
                runner.catch_up()
        elif kind == "append":
            s = sessions[op[1] % len(sessions)]
            spec = op[2]
            invs = invocations[s.id]
            if spec["new_invocation"] or not invs:
                invs.append(f"inv-{uuid.uuid4().hex[:6]}")
            inv = invs[-1]
            clock[0] += spec["gap"]
            shape, author = spec["shape"], spec["author"]
            kw: dict[str, Any] = {"text": "hi"}
            if shape == "call":
                call_ids[s.id] = f"call-{uuid.uuid4().hex[:6]}"
                kw = {"call": (call_ids[s.id], "lookup", {"q": 1})}
            elif shape in ("result", "error"):
                kw = {"result": (call_ids.get(s.id, "none"), "lookup", {"error": "x"} if shape == "error" else {"r": 1})}
            elif shape == "model_error":
                kw = {"error": "RESOURCE_EXHAUSTED"}
            await service.append_event(s, event(
                author, inv, delta=spec["delta"], artifacts=spec["artifacts"], usage=spec["usage"],
                timestamp=clock[0], **kw,
            ))
        elif kind == "rewind":
            s = sessions[op[1] % len(sessions)]
            invs = invocations[s.id]
            if not invs:
                continue
            target = invs[op[2] % len(invs)]
            try:
                await service.rewind_session(app_name=app, user_id=s.user_id, session_id=s.id, rewind_before_invocation_id=target)
            except Exception as e:  # a target already rewound is refused: fine
                assert "invocation" in str(e).lower()
                continue
            invocations[s.id] = invs[: invs.index(target)]
            sessions[sessions.index(s)] = await service.get_session(app_name=app, user_id=s.user_id, session_id=s.id)
        elif kind == "fork":
            s = sessions[op[1] % len(sessions)]
            invs = invocations[s.id]
            at = invs[op[2] % len(invs)] if invs and op[2] is not None else None
            fork = await service.fork_session(app_name=app, user_id=s.user_id, session_id=s.id, at_invocation_id=at)
            sessions.append(fork)
            invocations[fork.id] = invs[: invs.index(at)] if at else list(invs)
        elif kind == "delete":
            s = sessions.pop(op[1] % len(sessions))
            await service.delete_session(app_name=app, user_id=s.user_id, session_id=s.id)
    return sorted(users)


@settings(max_examples=int(os.environ.get("CHRONICLE_EXAMPLES", "20")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
async def test_rebuild_equals_live_for_every_projection(store_url, ops):
    service = session_service_from_url(store_url)  # one store for every example (memory: a new one)
    try:
        store = service.store
        live = [ProjectionFollower(store, p, batch_size=3, cache_size=2) for p in TRACKED]
        users = await run_ops(service, live, ops, f"app{uuid.uuid4().hex[:8]}")
        for runner in live:
            runner.batch_size = 7
            runner.catch_up()
            rebuilt = ProjectionFollower(store, shadow(runner.projection))
            rebuilt.rebuild()
            assert rows_without_name(runner) == rows_without_name(rebuilt), runner.name
            assert stored(runner) == reference(store, runner.projection), runner.name
        # The scoped-state read model says what the session service says.
        scoped = live[0]
        for app_name, user_id in users:
            expected = store.recorder.select_scoped(app_name, user_id)
            assert canonical({**scoped.view(app_name, "app_state"), **scoped.view(f"{app_name}/{user_id}", "user_state")}) == canonical(expected)
        # The session-level folds give what the log aggregate holds.
        source = LogSource(store)
        for app_name, user_id in users:
            for listed in (await service.list_sessions(app_name=app_name, user_id=user_id)).sessions:
                log_id = session_log_id(app_name, user_id, listed.id)
                log = store.application.repository.get(log_id)
                events = source.session_events(log_id)
                key = f"{app_name}/{user_id}/{listed.id}"
                assert canonical(fold_one(SESSION_STATE, events, key)) == canonical(log.state)
                assert fold_one(SESSION_ARTIFACTS, events, key) == log.artifacts
    finally:
        await service.close()


# -- exactly once, catching up, following ---------------------------------------------------


async def test_recorded_payloads_decode_their_event_alone_as_the_whole_payload_would(service):
    # The fast path of a rebuild: a stored Recorded payload's event, decoded alone, must be what
    # decoding the whole payload gives (and must be taken: a layout change would only slow it).
    import json

    from runtime.read_models.source import _RECORDED_TOPIC
    from runtime.stores.application import recorded_event as _recorded_event

    s = await service.create_session(app_name="fast", user_id="u", state={"user:a": 1})
    await service.append_event(s, event(text='quote " and , "event": inside', delta={"app:x": {"event": 1}}))
    await service.append_event(s, event("agent", call=("c1", "event", {"event": {"class_version": 1}})))
    await service.append_event(s, event("agent", result=("c1", "event", {"error": "ünïcode"}), usage=(1, 2)))
    rows = LogSource(service.store)._select_rows(0, 100)  # noqa: SLF001
    recorded = [r for r in rows if r[3] == _RECORDED_TOPIC]
    assert len(recorded) == 3
    for row in recorded:
        assert _recorded_event(row[4]) == json.loads(row[4])["event"]


async def test_competing_runners_apply_each_batch_exactly_once(service):
    sessions = [await service.create_session(app_name="race", user_id=f"u{i % 3}") for i in range(6)]
    store = service.store
    runners = [ProjectionFollower(store, p, batch_size=2, cache_size=3) for p in TRACKED for _ in range(2)]
    stop = threading.Event()
    errors: list[BaseException] = []

    def keep_catching_up(runner: ProjectionFollower) -> None:
        try:
            while not stop.is_set():
                runner.catch_up()
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=keep_catching_up, args=(r,)) for r in runners]
    for t in threads:
        t.start()
    try:
        for i in range(60):
            s = sessions[i % len(sessions)]
            await service.append_event(s, event(
                "agent" if i % 2 else "user", f"i{i // 4}", delta={"n": i, "user:c": i, "app:c": i},
                artifacts={"f.txt": i}, usage=(3, 4) if i % 2 else None, text=str(i),
            ))
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not errors
    assert gc.isenabled()  # the runners' shared gc pause ended with the last batch
    for projection in TRACKED:
        live = ProjectionFollower(store, projection)
        live.catch_up()
        rebuilt = ProjectionFollower(store, shadow(projection))
        rebuilt.rebuild()
        assert rows_without_name(live) == rows_without_name(rebuilt)
        assert stored(live) == reference(store, projection)
    assert Projector(store).analytics("race").totals.events == 60


async def test_catching_up_leaves_a_disabled_garbage_collector_disabled(service):
    s = await service.create_session(app_name="gc", user_id="u")
    await service.append_event(s, event(delta={"app:n": 1}))
    gc.disable()
    try:
        ProjectionFollower(service.store, SCOPED_STATE).catch_up()
        assert not gc.isenabled()
    finally:
        gc.enable()
    ProjectionFollower(service.store, ANALYTICS).catch_up()
    assert gc.isenabled()


async def test_a_runner_follows_new_events_as_they_commit(service):
    s = await service.create_session(app_name="live", user_id="u")
    runner = ProjectionFollower(service.store, ANALYTICS).start()
    try:
        for i in range(5):
            await service.append_event(s, event(invocation=f"i{i}", text=str(i)))
            end = runner.source.max_position()
            deadline = time.monotonic() + 5
            while runner.position() < end:
                assert time.monotonic() < deadline, "the runner did not follow the log"
                time.sleep(0.005)
            assert runner.view("live").totals.events == i + 1
    finally:
        runner.stop()


async def test_rebuild_drops_and_refolds_and_a_stale_runner_notices(service):
    s = await service.create_session(app_name="app", user_id="u", state={"user:a": 1})
    for i in range(5):
        await service.append_event(s, event(delta={"user:a": i, "app:b": -i}, invocation=f"i{i}"))
    first, second = ProjectionFollower(service.store, SCOPED_STATE), ProjectionFollower(service.store, SCOPED_STATE)
    first.catch_up()
    expected = rows_without_name(first)
    storage_for(service.store).drop(SCOPED_STATE.name)  # someone dropped the rows
    assert second.views() == {}
    await service.append_event(s, event(delta={"user:a": 99}, invocation="i9"))
    first.catch_up()  # its cached views are stale: it notices the position moved and refolds
    assert first.view("app/u", "user_state") == {"user:a": 99}
    assert second.rebuild() > 0
    assert rows_without_name(second)["items"] == rows_without_name(first)["items"]
    assert rows_without_name(first)["history"][: len(expected["history"])] == expected["history"]
    # A rebuild that comes back to the very same position still starts a new epoch: a runner
    # whose cache predates it (a worker elsewhere) drops its cache instead of writing over it.
    first._cache[("user_state", "app/u")]["user:a"] = "stale"
    second.rebuild()
    await service.append_event(s, event(delta={"app:b": 7}, invocation="i10"))
    first.catch_up()
    assert first.view("app/u", "user_state") == {"user:a": 99}
    assert first.view("app", "app_state") == {"app:b": 7}


async def test_a_user_defined_projection_is_built_over_history_then_kept_live(service):
    s = await service.create_session(app_name="shop", user_id="ann")
    await service.append_event(s, event("agent", "i1", call=("c1", "search", {"q": "tea"})))
    await service.append_event(s, event("agent", "i1", call=("c2", "search", {"q": "cups"})))

    # The README's example: a fold function and a name.
    def tool_calls(view: dict, event: LogEvent) -> dict:
        for call in event.function_calls():
            view[call["name"]] = view.get(call["name"], 0) + 1
        return view

    projector = Projector(service.store)
    projector.add(Projection("tool_calls", tool_calls), catch_up=True)
    assert projector.view("tool_calls", "shop") == {"search": 2}  # built over the existing history

    with projector:  # kept live
        await service.append_event(s, event("agent", "i2", call=("c3", "checkout", {})))
        deadline = time.monotonic() + 5
        while projector.view("tool_calls", "shop") != {"search": 2, "checkout": 1}:
            assert time.monotonic() < deadline
            time.sleep(0.01)
    assert ("tool_calls", projector.runner("tool_calls").position(), 0) in projector.status()


async def test_catching_up_to_a_position_stops_there(service):
    s = await service.create_session(app_name="app", user_id="u")
    for i in range(6):
        await service.append_event(s, event(delta={"app:n": i}, invocation=f"i{i}"))
    runner = ProjectionFollower(service.store, SCOPED_STATE, batch_size=4)
    end = runner.source.max_position()
    runner.catch_up(upto=end - 3)
    assert 0 < runner.position() <= end - 3
    assert runner.view("app", "app_state") == {"app:n": 2}
    runner.catch_up()
    assert runner.position() == end and runner.view("app", "app_state") == {"app:n": 5}
