"""A generated fuzz of every route of a real `chronicle serve` (SQLite, PostgreSQL): hypothesis builds
bodies from each route's body model (its fields, camelCase and snake_case, filled with hostile JSON)
and queries from each route's query keys, plus the shapes that once answered 500: bodies nested
20,000-100,000 levels, 5,000-digit integers, `null`, NaN, lone surrogates, `?time=nan`.

What a user relies on: no input is answered with a 5xx, every refusal says why in one line, and a
refused request writes nothing (the session is as it was, and `chronicle verify` still passes)."""

from __future__ import annotations

import json
import os
import uuid
from typing import Any, Iterator, Optional
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from starlette.routing import Route

from runtime.server import routes_answer, routes_artifacts, routes_basic, routes_chronicle, routes_debug
from runtime.server import routes_eval, routes_run, routes_sessions, routes_viewer
from tests.cli_helpers import cli
from tests.server_helpers import OPS, Served

pytestmark = pytest.mark.postgres

BODIES = {  # the body model of each route that reads one
    routes_sessions.create_session: routes_sessions.CreateSessionRequest,
    routes_sessions.update_session: routes_sessions.UpdateSessionRequest,
    routes_sessions.patch_memory: routes_sessions.UpdateMemoryRequest,
    routes_sessions.create_session_with_id: None,  # the body is a state: any object
    routes_artifacts.save: routes_artifacts.SaveArtifactRequest,
    routes_run.run: routes_run.RunAgentRequest,
    routes_run.run_sse: routes_run.RunAgentRequest,
    routes_chronicle.rewind: routes_chronicle.RewindRequest,
    routes_chronicle.fork: routes_chronicle.ForkRequest,
    routes_chronicle.replay: routes_chronicle.ReplayRequest,
    routes_answer.answer: routes_answer.AnswerRequest,
}
POINTS = ("event", "before", "after", "version", "time")
QUERIES = {  # the query keys each route reads
    routes_chronicle.state_at: POINTS,
    routes_chronicle.diff: tuple(p + k for p in ("from_", "to_") for k in POINTS),
    routes_chronicle.export: ("format",),
    routes_chronicle.verify_store: ("app", "user"),
    routes_chronicle.analytics: ("user", "since", "until"),
    routes_basic.list_apps: ("detailed",),
    routes_artifacts.load: ("version",),
    routes_debug.session_trace: ("user_id",),
    routes_viewer.search_sessions: ("app", "user", "q", "since", "until", "status", "limit"),
    routes_eval.compare: ("a", "b"),
}
ROUTES = [(route, method) for module in (routes_basic, routes_sessions, routes_artifacts, routes_run,
                                         routes_chronicle, routes_debug, routes_answer, routes_viewer, routes_eval)
          for route in module.ROUTES if isinstance(route, Route)
          for method in sorted(route.methods or ()) if method != "HEAD"]
PATH_KEYS = ("app_name", "user_id", "session_id", "artifact_name", "version_id", "request_id",
             "invocation_id", "event_id")

# -- hostile values --------------------------------------------------------------------------------

SURROGATE = "\ud800"
hostile_text = st.one_of(
    st.text(max_size=12),
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3),
    st.sampled_from(["", " ", "../etc/passwd", "a/../b", "/abs", "x\x00y", SURROGATE + ".txt", "latest",
                     "nan", "inf", "-inf", "1e309", "9" * 5000, "-1", "0", "2026-13-45", "user:", "ann", "*"]),
)
hostile_scalar = st.one_of(
    st.none(), st.booleans(), hostile_text,
    st.integers(), st.sampled_from([2**63, -(2**63) - 1, 10**300]),
    st.floats(allow_nan=True, allow_infinity=True),
)
hostile_json = st.recursive(
    hostile_scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(hostile_text, inner, max_size=4)),
    max_leaves=12,
)
# Raw bodies JSON cannot generate from values: deep nesting, huge integers, bare constants. Drawn as
# (shape, size) and built when sent, so that a failing example prints short.
RAW_BODIES = st.one_of(
    st.tuples(st.sampled_from(["deep list", "deep object"]), st.integers(20_000, 100_000)),
    st.tuples(st.just("huge integer"), st.integers(4_400, 6_000)),
    st.tuples(st.sampled_from(["null", "NaN", "[]", "1", '"text"', "{", '{"a": Infinity}', "\udcff\udcfe",
                               '{"stateDelta": {"x": -Infinity}}', '{"state_delta": null}',
                               '{"filename": "\\ud800.txt", "artifact": {"text": "x"}}']), st.just(0)),
)


def _raw(shape: str, size: int) -> str:
    if shape == "deep list":
        return "[" * size + "]" * size
    if shape == "deep object":
        return '{"a":' * size + "1" + "}" * size
    if shape == "huge integer":
        return '{"stateDelta": {"x": ' + "7" * size + "}, \"state\": " + "7" * size + "}"
    return shape


def _fields(model: Any) -> list[str]:
    if model is None:
        return []
    names = []
    for name, field in model.model_fields.items():
        names.append(name)
        if field.alias and field.alias != name:
            names.append(field.alias)
    return names


@st.composite
def requests(draw: Any) -> tuple[str, str, dict[str, str], Any]:
    route, method = draw(st.sampled_from(ROUTES))
    endpoint = route.endpoint
    params = {}
    for key in route.param_convertors:
        params[key] = draw(st.one_of(st.just("<known>"), hostile_text))
    query = {key: draw(hostile_text) for key in QUERIES.get(endpoint, ())
             if draw(st.booleans())}
    body: Any = None
    if method in ("POST", "PATCH", "PUT"):
        fields = _fields(BODIES.get(endpoint))
        shaped = st.dictionaries(st.sampled_from(fields), hostile_json, max_size=len(fields)) if fields else hostile_json
        choice = draw(st.one_of(shaped.map(lambda v: ("json", v)), hostile_json.map(lambda v: ("json", v)),
                                RAW_BODIES.map(lambda v: ("raw", v))))
        body = json.dumps(choice[1]) if choice[0] == "json" else choice[1]
    return method, route.path, {**params, "?": json.dumps(query)}, body


def _quoted(value: str) -> str:
    return quote(value.encode("utf-8", "surrogatepass"), safe="")


def _path(template: str, params: dict[str, str], known: dict[str, str]) -> str:
    for key in PATH_KEYS:
        value = params.get(key)
        if value is not None:
            value = known.get(key, "x") if value == "<known>" else value
            encoded = _quoted(value)
            template = template.replace("{" + key + "}", encoded).replace("{" + key + ":path}", encoded)
    return template


# -- the server ------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def store(request, tmp_path_factory) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('fuzz')}/chronicle.db"
    pg = request.getfixturevalue("pg_server")
    return pg.create_database(f"fuzz_{os.getpid()}_{uuid.uuid4().hex[:8]}")


@pytest.fixture(scope="module")
def served(store) -> Iterator[Served]:
    server = Served(store)
    yield server
    assert "Internal server error" not in server.stop()


@pytest.fixture(scope="module")
def known(served) -> dict[str, str]:
    """A session with a turn and an artifact, so that requests naming it reach the handlers."""
    session_id = f"s-{uuid.uuid4().hex[:8]}"
    with served.client(OPS) as ops:
        assert ops.post(f"/apps/slow/users/ann/sessions", json={"sessionId": session_id}).status_code == 200
        ran = ops.post("/run", json={"appName": "slow", "userId": "ann", "sessionId": session_id,
                                     "newMessage": {"role": "user", "parts": [{"text": "hello"}]}})
        assert ran.status_code == 200, ran.text
        saved = ops.post(f"/apps/slow/users/ann/sessions/{session_id}/artifacts",
                         json={"filename": "a.txt", "artifact": {"text": "x"}})
        assert saved.status_code == 200, saved.text
        return {"app_name": "slow", "user_id": "ann", "session_id": session_id, "artifact_name": "a.txt",
                "version_id": "0", "invocation_id": ran.json()[0]["invocationId"]}


TALLY: dict[str, dict[str, int]] = {}  # per store: hostile requests sent, 5xx answered


def _snapshot(client: Any, known: dict[str, str]) -> Any:
    session = client.get(f"/apps/slow/users/ann/sessions/{known['session_id']}")
    return session.status_code, session.json().get("lastUpdateTime"), len(session.json().get("events", []))


@settings(max_examples=int(os.environ.get("CHRONICLE_FUZZ_EXAMPLES", "250")), deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(wanted=requests())
def test_no_input_gets_a_5xx(served, store, known, wanted):
    method, template, params, body = wanted
    query = json.loads(params.pop("?"))
    if method == "DELETE" and template.endswith("{session_id}"):
        params["session_id"] = "another"  # deleting the known session would end the fuzz of it
    with served.client(OPS) as client:
        before = _snapshot(client, known)
        url = _path(template, params, known) + "?" + "&".join(f"{k}={_quoted(v)}" for k, v in query.items())
        content = None if body is None else (body if isinstance(body, str) else _raw(*body))
        answer = client.request(method, url, content=None if content is None else
                                content.encode("utf-8", "surrogateescape" if "\udcff" in content else "surrogatepass"),
                                headers={"Content-Type": "application/json"})
        tally = TALLY.setdefault(store, {"requests": 0, "5xx": 0})
        tally["requests"] += 1
        tally["5xx"] += answer.status_code >= 500
        assert answer.status_code < 500, (method, template, params, query, body, answer.text)
        if 400 <= answer.status_code < 500:
            detail = answer.json()["detail"]
            assert isinstance(detail, str) and detail and "\n" not in detail, detail
            assert _snapshot(client, known) == before, "a refused request changed the session"


def test_the_store_still_verifies(served, store, known):
    """After the fuzz: the log is whole and no refusal left a half-written row (or a false alarm)."""
    tally = TALLY.get(store, {"requests": 0, "5xx": 0})
    print(f"\nfuzz on {store.split(':')[0]}: {tally['requests']} hostile requests, {tally['5xx']} answered 5xx")
    cli("verify", store=store)


LISTED = [  # the shapes that answered 500 before, each on the routes it broke
    *[(m, p, ("deep list", 50_000)) for m, p in [("PATCH", "S"), ("POST", "/run"), ("POST", "S/rewind"), ("POST", "A")]],
    *[(m, p, ("huge integer", 5_000)) for m, p in [("PATCH", "S"), ("POST", "/apps/slow/users/ann/sessions")]],
    *[(m, p, "null") for m, p in [("PATCH", "S"), ("PATCH", "/apps/slow/users/ann/memory"), ("POST", "A"),
                                  ("POST", "/run"), ("POST", "/run_sse"), ("POST", "S/rewind")]],
    ("POST", "A", '{"filename": "\\ud800.txt", "artifact": {"text": "x"}}'),
    *[("GET", "S/state?time=" + v, None) for v in ("nan", "inf", "-inf", "1e309")],
    *[("GET", "S/diff?from_time=" + v, None) for v in ("nan", "inf")],
]


@pytest.mark.parametrize("method,path,body", LISTED, ids=[f"{m} {p} {str(b)[:20]}" for m, p, b in LISTED])
def test_listed_shapes_get_a_4xx(served, known, method, path, body):
    session = f"/apps/slow/users/ann/sessions/{known['session_id']}"
    path = path.replace("S", session, 1) if path.startswith("S") else path.replace("A", session + "/artifacts", 1) \
        if path == "A" else path
    content = None if body is None else (body if isinstance(body, str) else _raw(*body))
    with served.client(OPS) as client:
        before = _snapshot(client, known)
        answer = client.request(method, path, content=content, headers={"Content-Type": "application/json"})
        assert 400 <= answer.status_code < 500, answer.text
        assert "\n" not in answer.json()["detail"]
        assert _snapshot(client, known) == before


def test_artifacts_need_a_live_session(served, store, known):
    """Saving into a session that never existed, or was deleted, is a 404 and writes nothing: no
    caller can make `chronicle verify` report tampering."""
    with served.client(OPS) as client:
        gone = f"gone-{uuid.uuid4().hex[:6]}"
        assert client.post("/apps/slow/users/ann/sessions", json={"sessionId": gone}).status_code == 200
        assert client.delete(f"/apps/slow/users/ann/sessions/{gone}").status_code == 200
        for session_id in (f"never-{uuid.uuid4().hex[:6]}", gone):
            for filename in ("a.txt", "user:shared.txt"):
                answer = client.post(f"/apps/slow/users/ann/sessions/{session_id}/artifacts",
                                     json={"filename": filename, "artifact": {"text": "x"}})
                assert answer.status_code == 404, answer.text
                assert session_id in answer.json()["detail"]
            assert client.get(f"/apps/slow/users/ann/sessions/{session_id}/artifacts").json() == []
    cli("verify", store=store)
