"""`chronicle serve` over HTTP: a real uvicorn process per store (SQLite, PostgreSQL), driven with
httpx; Gemini through the real google-genai client against the local fake Gemini server."""

from __future__ import annotations

import os
import threading
import time
import uuid
from typing import Any, Iterator

import pytest

from tests.cli_helpers import cli, cli_json
from tests.gemini_server import GeminiServer, function_call_part
from tests.server_helpers import ANN, BOB, OPS, Served, has_null, httpx, message, sse_frames

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def gemini() -> Iterator[GeminiServer]:
    with GeminiServer() as server:
        yield server


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def store(request, tmp_path_factory) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('served')}/chronicle.db"
    pg = request.getfixturevalue("pg_server")
    return pg.create_database(f"served_{os.getpid()}_{uuid.uuid4().hex[:8]}")


@pytest.fixture(scope="module")
def servers(store, gemini) -> Iterator[tuple[Served, Served]]:
    """Two processes on one store (the second with two workers), started together."""
    env = {"GOOGLE_GEMINI_BASE_URL": gemini.url}
    conformance = ("--extra_plugins", "google.adk.cli.plugins.replay_plugin.ReplayPlugin",  # ADK's spelling
                   "runtime.server.conformance.RecordingsPlugin")  # ADK's name, and Chronicle's
    first = Served(store, env=env, args=("--max-body-bytes", "200000", "--max-run-events", "6", *conformance),
                   wait=False)
    second = Served(store, env=env, args=("--workers", "2"), wait=False)
    try:
        first.wait()
        second.wait()
        yield first, second
    finally:
        first.stop()
        second.stop()


@pytest.fixture(scope="module")
def served(servers) -> Served:
    return servers[0]


@pytest.fixture
def ann(served) -> Iterator[Any]:
    with served.client(ANN) as client:
        yield client


def new_session(client: Any, app: str = "slow", user: str = "ann", **body: Any) -> dict[str, Any]:
    response = client.post(f"/apps/{app}/users/{user}/sessions", json={"sessionId": f"s-{uuid.uuid4().hex[:10]}", **body})
    assert response.status_code == 200, response.text
    return response.json()


def run(client: Any, session: dict[str, Any], text: str, **body: Any) -> Any:
    return client.post("/run", json={
        "appName": session["appName"], "userId": session["userId"], "sessionId": session["id"],
        "newMessage": message(text), **body,
    })


# -- ADK's routes --------------------------------------------------------------------------------


def test_basic_routes(served, ann):
    assert httpx.get(served.url + "/health").json() == {"status": "ok"}
    version = httpx.get(served.url + "/version").json()
    assert version["language"] == "python" and version["version"]
    assert ann.get("/list-apps").json() == ["configured", "slow", "weather"]
    detailed = ann.get("/list-apps", params={"detailed": "true"}).json()["apps"]
    assert {a["name"]: a["language"] for a in detailed} == {"configured": "yaml", "slow": "python", "weather": "python"}
    info = ann.get("/apps/configured/app-info").json()
    assert info["rootAgentName"] == "configured_agent" and info["language"] == "yaml"
    assert info["agents"]["configured_agent"]["sub_agents"] == ["helper"]
    [tool] = info["agents"]["configured_agent"]["tools"]
    assert tool["functionDeclarations"][0]["name"] == "shout"
    # NAME.py is served too (ADK lists only folders, but loads modules).
    assert ann.get("/apps/single/app-info").json()["rootAgentName"] == "single_agent"
    assert ann.get("/apps/nope/app-info").status_code == 404


def test_sessions_create_get_list_patch_delete(ann):
    created = new_session(ann, state={"plan": "basic"}, events=[
        {"author": "user", "invocationId": "e-old", "content": message("earlier question")},
        {"author": "sleeper", "invocationId": "e-old", "content": {"role": "model", "parts": [{"text": "earlier answer"}]}},
    ])
    assert created["state"] == {"plan": "basic"} and created["appName"] == "slow" and created["userId"] == "ann"
    assert [e["author"] for e in created["events"]] == ["user", "sleeper"]
    assert not has_null(created)
    path = f"/apps/slow/users/ann/sessions/{created['id']}"
    patched = ann.patch(path, json={"stateDelta": {"plan": "pro", "seats": 3}}).json()
    assert patched["state"] == {"plan": "pro", "seats": 3}
    fetched = ann.get(path).json()
    assert fetched["state"] == {"plan": "pro", "seats": 3} and len(fetched["events"]) == 3
    assert created["id"] in [s["id"] for s in ann.get("/apps/slow/users/ann/sessions").json()]
    assert ann.post("/apps/slow/users/ann/sessions", json={"sessionId": created["id"]}).status_code == 409
    assert ann.delete(path).status_code == 200
    assert ann.get(path).status_code == 404
    # A restored event may not claim the runtime's own actions.
    refused = ann.post("/apps/slow/users/ann/sessions", json={
        "sessionId": "restored", "events": [{"author": "user", "actions": {"stateDelta": {"x": 1}}}]})
    assert refused.status_code == 400
    assert ann.get("/apps/slow/users/ann/sessions/restored").status_code == 404


def test_run_through_the_real_gemini_client(ann, gemini):
    session = new_session(ann, app="weather")
    gemini.reply_function_call("get_weather", {"city": "Paris"})
    gemini.reply_text("Sunny, 24 °C in Paris.")
    response = run(ann, session, "Weather in Paris?", stateDelta={"units": "C"}, customMetadata={"ticket": "T-1"})
    assert response.status_code == 200, response.text
    events = response.json()
    assert [e["author"] for e in events] == ["forecaster"] * 3
    assert events[0]["content"]["parts"][0]["functionCall"]["name"] == "get_weather"
    assert events[1]["content"]["parts"][0]["functionResponse"]["response"]["forecast"] == "sunny"
    assert events[2]["content"]["parts"][0]["text"] == "Sunny, 24 °C in Paris."
    assert all(e["customMetadata"] == {"ticket": "T-1"} for e in events)
    assert not has_null(events) and "invocationId" in events[0] and "usageMetadata" in events[2]
    stored = ann.get(f"/apps/weather/users/ann/sessions/{session['id']}").json()
    assert stored["state"] == {"units": "C", "user:last_city": "Paris"}
    assert stored["events"][0]["content"]["parts"][0]["text"] == "Weather in Paris?"


def test_run_sse_streams_partial_events_then_the_turn(ann, gemini):
    session = new_session(ann, app="weather")
    gemini.reply_stream(["Let me ", "check. ", function_call_part("get_weather", {"city": "Oslo"})])
    gemini.reply_stream(["Oslo is ", "sunny."])
    body = {"appName": "weather", "userId": "ann", "sessionId": session["id"],
            "newMessage": message("Oslo?"), "streaming": True, "invocationId": "e-mine"}
    with ann.stream("POST", "/run_sse", json=body) as response:
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
        frames = list(sse_frames(response))
    partial = [f["content"]["parts"][0]["text"] for f in frames if f.get("partial") and "text" in f["content"]["parts"][0]]
    assert partial == ["Let me ", "check. ", "Oslo is ", "sunny."]
    whole = [f for f in frames if not f.get("partial")]
    assert whole[-1]["content"]["parts"][0]["text"] == "Oslo is sunny."
    assert {f["invocationId"] for f in frames} == {"e-mine"}
    stored = ann.get(f"/apps/weather/users/ann/sessions/{session['id']}").json()["events"]
    assert len(stored) == 4 and not any(e.get("partial") for e in stored)


def test_run_sse_reports_an_error_as_a_data_frame(ann, gemini):
    session = new_session(ann, app="weather")
    gemini.reply_error(400, "Bad prompt.")
    with ann.stream("POST", "/run_sse", json={"appName": "weather", "userId": "ann", "sessionId": session["id"],
                                              "newMessage": message("hi")}) as response:
        frames = list(sse_frames(response))
    assert "error" in frames[-1] and "Bad prompt." in frames[-1]["error"]


def test_yaml_app_runs_tools_callbacks_and_output_key(ann):
    session = new_session(ann, app="configured")
    events = run(ann, session, "quiet").json()
    assert events[-1]["content"]["parts"][0]["text"] == "Loud: QUIET"
    state = ann.get(f"/apps/configured/users/ann/sessions/{session['id']}").json()["state"]
    assert state == {"turns": 1, "last_answer": "Loud: QUIET"}


def test_a_client_that_leaves_aborts_the_run_and_the_log_records_it(served, ann):
    session = new_session(ann)
    body = {"appName": "slow", "userId": "ann", "sessionId": session["id"], "newMessage": message("wait 30")}
    with served.client(ANN) as leaving, leaving.stream("POST", "/run_sse", json=body) as response:
        first = next(sse_frames(response))
        assert first["content"]["parts"][0]["functionCall"]["name"] == "wait_a_while"
    # The client is gone: the server aborts the run, and the sealing event says so.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        events = ann.get(f"/apps/slow/users/ann/sessions/{session['id']}").json()["events"]
        if events[-1].get("errorCode") == "INVOCATION_ABORTED":
            break
        time.sleep(0.2)
    response_part = events[-1]["content"]["parts"][0]["functionResponse"]
    assert response_part["name"] == "wait_a_while" and "aborted" in response_part["response"]["error"]
    assert len(events) == 3  # the message, the call, the recorded cancellation: the tool never answered


def conflicting_turns(slow_client: Any, fast_client: Any, session: dict[str, Any]) -> None:
    """A slow turn, and while it runs another turn on the same session: one of them gets a 409,
    and the history holds each invocation's events together, never interleaved."""
    results: dict[str, Any] = {}
    slow = threading.Thread(target=lambda: results.setdefault("slow", run(slow_client, session, "wait 1.5")))
    slow.start()
    time.sleep(0.7)
    results["fast"] = run(fast_client, session, "hello")
    slow.join()
    assert sorted(r.status_code for r in results.values()) == [200, 409], [r.text for r in results.values()]
    conflict = next(r for r in results.values() if r.status_code == 409).json()["detail"]
    assert "version" in conflict
    events = fast_client.get(f"/apps/slow/users/ann/sessions/{session['id']}").json()["events"]
    seen: list[str] = []
    for e in events:
        if not seen or seen[-1] != e["invocationId"]:
            assert e["invocationId"] not in seen
            seen.append(e["invocationId"])


def test_concurrent_turns_on_one_session_conflict_with_409(served, ann):
    with served.client(ANN) as other:
        conflicting_turns(other, ann, new_session(ann))


def test_a_run_past_the_events_limit_is_cancelled(ann):
    session = new_session(ann)
    response = run(ann, session, "chain 5")  # 11 events; this server allows 6 in one run
    assert response.status_code == 400 and "limit" in response.json()["detail"]
    events = ann.get(f"/apps/slow/users/ann/sessions/{session['id']}").json()["events"]
    assert events[-1]["errorCode"] == "INVOCATION_ABORTED" and len(events) < 12


def test_artifacts(ann):
    session = new_session(ann)
    base = f"/apps/slow/users/ann/sessions/{session['id']}/artifacts"
    part = {"inlineData": {"mimeType": "text/plain", "data": "aGVsbG8="}}
    first = ann.post(base, json={"filename": "notes.txt", "artifact": part, "customMetadata": {"k": 1}}).json()
    assert first["version"] == 0 and first["mimeType"] == "text/plain" and first["customMetadata"] == {"k": 1}
    ann.post(base, json={"filename": "notes.txt", "artifact": {"text": "second"}})
    # Chronicle refuses path-like names (ADK would store them), before anything is written.
    assert ann.post(base, json={"filename": "../etc/passwd", "artifact": {"text": "x"}}).status_code == 400
    assert ann.get(base).json() == ["notes.txt"]
    assert ann.get(base + "/notes.txt").json() == {"text": "second"}
    assert ann.get(base + "/notes.txt", params={"version": 0}).json()["inlineData"]["data"] == "aGVsbG8="
    assert ann.get(base + "/notes.txt/versions/0").json()["inlineData"]["mimeType"] == "text/plain"
    assert ann.get(base + "/notes.txt/versions").json() == [0, 1]
    assert [v["version"] for v in ann.get(base + "/notes.txt/versions/metadata").json()] == [0, 1]
    assert ann.get(base + "/notes.txt/versions/latest/metadata").json()["version"] == 1
    assert ann.get(base + "/notes.txt/versions/x/metadata").status_code == 422
    assert ann.get(base + "/notes.txt/versions/7").status_code == 404
    assert ann.delete(base + "/notes.txt").status_code == 200
    assert ann.get(base).json() == [] and ann.get(base + "/notes.txt").status_code == 404
    # A save names a live session: one that never existed is a 404 and stores nothing.
    ghost = "/apps/slow/users/ann/sessions/never-made/artifacts"
    assert ann.post(ghost, json={"filename": "notes.txt", "artifact": {"text": "x"}}).status_code == 404
    assert ann.get(ghost).json() == []


def test_memory_patch_makes_a_session_searchable(ann):
    session = new_session(ann)
    run(ann, session, "remember the blue kettle")
    assert ann.patch("/apps/slow/users/ann/memory", json={"sessionId": session["id"]}).status_code == 200
    assert ann.patch("/apps/slow/users/ann/memory", json={"sessionId": "missing"}).status_code == 404


# -- Chronicle's routes --------------------------------------------------------------------------


def test_rewind_fork_history_state_diff(ann):
    session = new_session(ann, state={"n": 0})
    path = f"/apps/slow/users/ann/sessions/{session['id']}"
    first = run(ann, session, "one").json()[0]["invocationId"]
    ann.patch(path, json={"stateDelta": {"n": 1}})
    second = run(ann, session, "two").json()[0]["invocationId"]
    history = ann.get(path + "/history").json()
    assert [i["invocation_id"] for i in history["timeline"]["invocations"]][::2] == [first, second]
    before = ann.get(path + "/state", params={"before": second}).json()
    assert before["state"] == {"n": 1}
    assert ann.get(path + "/state", params={"after": first}).json()["state"] == {"n": 0}
    changes = ann.get(path + "/diff", params={"from_after": first, "to_before": second}).json()
    assert [(c["key"], c["before"], c["after"]) for c in changes["changes"]] == [("n", 0, 1)]
    forked = ann.post(path + "/fork", json={"atInvocationId": second, "newSessionId": session["id"] + "-f"}).json()
    assert forked["id"] == session["id"] + "-f" and forked["state"] == {"n": 1}
    marker = ann.post(path + "/rewind", json={"invocationId": second}).json()
    assert marker["actions"]["rewindBeforeInvocationId"] == second
    assert [e["invocationId"] for e in ann.get(path).json()["events"]][-1] == marker["invocationId"]
    assert ann.post(path + "/rewind", json={"invocationId": "e-unknown"}).status_code == 404
    assert ann.get(path + "/state", params={"before": second, "after": first}).status_code == 400


def test_verify_export_pending_and_trace(served, ann):
    session = new_session(ann)
    path = f"/apps/slow/users/ann/sessions/{session['id']}"
    run(ann, session, "hello there")
    assert ann.get(path + "/verify").json() == {"ok": True}
    lines = ann.get(path + "/export").text.splitlines()
    assert len(lines) == 3  # created, the message, the answer
    assert "hello there" in ann.get(path + "/export", params={"format": "markdown"}).text
    assert ann.get(path + "/export", params={"format": "adk"}).json()["id"] == session["id"]
    assert ann.get(path + "/export", params={"format": "xml"}).status_code == 400
    assert ann.get(path + "/pending").json() == []
    spans = ann.get(f"/dev/apps/slow/debug/trace/session/{session['id']}").json()
    assert [s["name"] for s in spans] == ["invocation", "agent_run [user]", "agent_run [sleeper]"]
    with served.client(OPS) as ops:
        assert ops.get("/chronicle/verify").json()["ok"] is True
        assert "sleeper" in ops.get("/apps/slow/analytics").json()["agents"]
        assert ops.get("/apps/slow/pending").json() == []
        assert ops.get(f"/dev/apps/slow/debug/trace/session/{session['id']}").json() == spans
    with served.client(BOB) as bob:
        assert bob.get(f"/dev/apps/slow/debug/trace/session/{session['id']}").status_code == 404


def _cli_session_args(session: dict[str, Any]) -> tuple[str, ...]:
    return session["id"], "--app", session["appName"], "--user", session["userId"]


def test_markdown_export_and_history_show_rewinds_as_the_cli_does(store, ann):
    session = new_session(ann)
    path = f"/apps/slow/users/ann/sessions/{session['id']}"
    invocations = [run(ann, session, text).json()[0]["invocationId"] for text in ("one", "two", "three")]
    ann.post(path + "/rewind", json={"invocationId": invocations[1]})
    run(ann, session, "four")
    markdown = ann.get(path + "/export", params={"format": "markdown"})
    assert markdown.headers["content-type"].startswith("text/markdown")
    assert markdown.text == cli("export", *_cli_session_args(session), "--format", "markdown", store=store).stdout
    assert markdown.text.count("## ~~Invocation") == 2  # "two" and "three", kept in the log
    assert markdown.text.count("> **Rewound** by rewind at v8") == 2
    assert f"**Rewind** back to before invocation `{invocations[1]}`: versions 4–7 hidden" in markdown.text
    history = ann.get(path + "/history").json()
    assert history == cli_json("history", *_cli_session_args(session), store=store)
    assert [m["before_invocation"] for m in history["rewinds"]] == [invocations[1]]
    rewound = {i["invocation_id"]: i["rewound"] for i in history["timeline"]["invocations"]}
    assert [rewound[i] for i in invocations] == [False, True, True]


def test_replay_through_another_served_app_runs_in_a_fork_of_the_session(store, ann):
    session = new_session(ann)
    path = f"/apps/slow/users/ann/sessions/{session['id']}"
    for text in ("one", "two"):
        run(ann, session, text)
    recorded = ann.get(path).json()["events"]
    report = ann.post(path + "/replay", json={"agent": "single", "newSessionId": session["id"] + "-r"}).json()
    assert report["source_session_id"] == session["id"] and report["session_id"] == session["id"] + "-r"
    assert report["identical"] is False
    assert [(t["recorded_answer"], t["replayed_answer"], t["differs"]) for t in report["turns"]] == [
        ("echo: one", "Hello from a module.", True), ("echo: two", "Hello from a module.", True)]
    assert "+Hello from a module." in report["turns"][0]["diff"]
    replayed = ann.get(f"/apps/slow/users/ann/sessions/{session['id']}-r").json()  # a session of the source app
    assert [e["content"]["parts"][0]["text"] for e in replayed["events"]] == [
        "one", "Hello from a module.", "two", "Hello from a module."]
    assert ann.get(path).json()["events"] == recorded  # the source is never touched
    same = ann.post(path + "/replay", json={}).json()  # the app's own agent answers as recorded
    assert same["identical"] is True and len(same["turns"]) == 2
    # The CLI's `replay --agent` is the same replay: the same report, but for the ids it made.
    by_cli = cli_json("replay", *_cli_session_args(session), "--agent", "tests.server_agents.single:root_agent",
                      "--new-id", session["id"] + "-cli", store=store)

    def without_ids(found: dict[str, Any]) -> dict[str, Any]:
        return {**found, "session_id": None, "turns": [{**t, "invocation_id": None} for t in found["turns"]]}

    assert without_ids(by_cli) == without_ids(report)


def test_replay_through_an_unknown_app_is_404_and_writes_nothing(ann):
    session = new_session(ann)
    path = f"/apps/slow/users/ann/sessions/{session['id']}"
    run(ann, session, "one")
    before = [s["id"] for s in ann.get("/apps/slow/users/ann/sessions").json()]
    for agent, status in (("no_such_app", 404), ("../slow", 404), (7, 422)):
        response = ann.post(path + "/replay", json={"agent": agent, "newSessionId": session["id"] + "-x"})
        assert response.status_code == status, response.text
    assert [s["id"] for s in ann.get("/apps/slow/users/ann/sessions").json()] == before


# -- scale out, not up: two processes on one store ---------------------------------------------


def test_a_conversation_alternating_between_two_servers_lands_every_turn_once_in_order(servers):
    first, second = servers
    with first.client(ANN) as a, second.client(ANN) as b:
        session = new_session(a)
        for turn in range(8):
            response = run([a, b][turn % 2], session, f"turn {turn}")
            assert response.status_code == 200, response.text
            assert response.json()[-1]["content"]["parts"][0]["text"] == f"echo: turn {turn}"
        for client in (a, b):  # both processes read the same history
            events = client.get(f"/apps/slow/users/ann/sessions/{session['id']}").json()["events"]
            texts = [e["content"]["parts"][0]["text"] for e in events]
            assert texts == [t for turn in range(8) for t in (f"turn {turn}", f"echo: turn {turn}")]


def test_a_concurrent_turn_from_the_other_server_gets_409(servers):
    first, second = servers
    with first.client(ANN) as a, second.client(ANN) as b:
        conflicting_turns(a, b, new_session(a))


# -- security and bad input ----------------------------------------------------------------------


def test_a_wrong_users_token_gets_403_on_every_route(served, ann):
    session = new_session(ann)
    run(ann, session, "mine")
    sid = session["id"]
    s = f"/apps/slow/users/ann/sessions/{sid}"
    routes = [
        ("GET", "/apps/slow/users/ann/sessions", None),
        ("POST", "/apps/slow/users/ann/sessions", {"sessionId": "intruder"}),
        ("GET", s, None), ("DELETE", s, None), ("PATCH", s, {"stateDelta": {"x": 1}}),
        ("POST", s, {"x": 1}),
        ("GET", s + "/artifacts", None),
        ("POST", s + "/artifacts", {"filename": "f.txt", "artifact": {"text": "x"}}),
        ("GET", s + "/artifacts/f.txt", None), ("GET", s + "/artifacts/f.txt/versions", None),
        ("GET", s + "/artifacts/f.txt/versions/0", None), ("GET", s + "/artifacts/f.txt/versions/metadata", None),
        ("GET", s + "/artifacts/f.txt/versions/0/metadata", None), ("DELETE", s + "/artifacts/f.txt", None),
        ("PATCH", "/apps/slow/users/ann/memory", {"sessionId": sid}),
        ("POST", "/run", {"appName": "slow", "userId": "ann", "sessionId": sid, "newMessage": message("x")}),
        ("POST", "/run_sse", {"appName": "slow", "userId": "ann", "sessionId": sid, "newMessage": message("x")}),
        ("POST", s + "/rewind", {"invocationId": "e-x"}), ("POST", s + "/fork", {}), ("POST", s + "/replay", {}),
        ("GET", s + "/history", None), ("GET", s + "/state", None), ("GET", s + "/diff?from_version=1", None),
        ("GET", s + "/verify", None), ("GET", s + "/export", None), ("GET", s + "/pending", None),
        ("GET", f"/dev/apps/slow/debug/trace/session/{sid}?user_id=ann", None),
        ("GET", "/chronicle/verify", None), ("GET", "/apps/slow/analytics", None), ("GET", "/apps/slow/pending", None),
    ]
    before = ann.get(s).json()
    with served.client(BOB) as bob, served.client(None) as nobody, served.client("tok-wrong-999") as wrong:
        for method, url, body in routes:
            response = bob.request(method, url, json=body)
            assert response.status_code == 403, (method, url, response.status_code, response.text)
            assert nobody.request(method, url, json=body).status_code == 401, (method, url)
            assert wrong.request(method, url, json=body).status_code == 401, (method, url)
    assert ann.get(s).json() == before  # nothing was written
    assert ann.get(s + "/artifacts").json() == []


def test_bad_input_is_refused_and_writes_nothing(served, ann):
    session = new_session(ann)
    s = f"/apps/slow/users/ann/sessions/{session['id']}"
    assert ann.post("/run", content=b"{not json").status_code == 400
    assert ann.post("/run", json={"appName": "slow"}).status_code == 422
    assert ann.post("/run", json={"appName": "slow", "userId": "ann", "sessionId": session["id"],
                                  "newMessage": {"parts": "nope"}}).status_code == 422
    assert ann.post("/run", json={"appName": "nope", "userId": "ann", "sessionId": "x",
                                  "newMessage": message("x")}).status_code == 404
    for route in ("/run", "/run_sse"):
        assert ann.post(route, json={"appName": "slow", "userId": "ann", "sessionId": "missing",
                                     "newMessage": message("x")}).status_code == 404
    assert ann.patch(s, json={"stateDelta": "not a dict"}).status_code == 422
    assert ann.post("/apps/slow/users/ann/sessions", json={"sessionId": "bad/id"}).status_code == 400
    assert ann.get("/apps/no_such_app/users/ann/sessions").status_code == 404
    too_big = ann.post(s + "/artifacts", json={"filename": "big.txt", "artifact": {"text": "x" * 300_000}})
    assert too_big.status_code == 413
    # CORS is off unless configured: a browser on another origin gets no permission.
    assert "access-control-allow-origin" not in ann.get(s, headers={"Origin": "https://elsewhere.example"}).headers
    stored = ann.get(s).json()
    assert stored["events"] == [] and stored["state"] == {}
    assert ann.get(s + "/artifacts").json() == []


def test_operator_token_reaches_every_user(served, ann):
    session = new_session(ann)
    with served.client(OPS) as ops:
        assert ops.get(f"/apps/slow/users/ann/sessions/{session['id']}").status_code == 200
    with served.client(BOB) as bob:
        for route in ("/chronicle/verify", "/apps/slow/analytics", "/apps/slow/pending"):
            assert "operator" in bob.get(route).json()["detail"]


# -- ADK's conformance convention: recorded model calls replayed --------------------------------

def _turn(client: Any, session: dict[str, Any], text: str, key: str, case_dir: Any, index: int) -> list[dict]:
    body = {"appName": session["appName"], "userId": "ann", "sessionId": session["id"], "newMessage": message(text),
            "stateDelta": {key: {"dir": str(case_dir), "user_message_index": index, "streaming_mode": "none"}}}
    with client.stream("POST", "/run_sse", json=body) as response:
        return list(sse_frames(response))


def _texts(frames: list[dict]) -> list[Any]:
    return [f["content"]["parts"][0].get("text") or f["content"]["parts"][0].get("functionCall", {}).get("name")
            for f in frames if "content" in f]


def _record_weather(client: Any, gemini: GeminiServer, case_dir: Any) -> list[dict]:
    gemini.reply_function_call("get_weather", {"city": "Rome"})
    gemini.reply_text("Sunny in Rome.")
    gemini.reply_text("You are welcome.")
    session = new_session(client, app="weather")
    recorded = _turn(client, session, "Rome?", "_adk_recordings_config", case_dir, 0)
    return recorded + _turn(client, session, "Thanks!", "_adk_recordings_config", case_dir, 1)


def test_recording_a_conversation_then_replaying_it(ann, gemini, tmp_path):
    import yaml

    recorded = _record_weather(ann, gemini, tmp_path)
    saved = yaml.safe_load((tmp_path / "generated-recordings.yaml").read_text())["recordings"]
    assert [(r["user_message_index"], "tool_recording" in r) for r in saved] == [(0, False), (0, True), (0, False), (1, False)]
    # Each model call is kept with the whole request it answered, as google-adk's recorder keeps it.
    assert "You help with the weather." in saved[0]["llm_recording"]["llm_request"]["config"]["system_instruction"]
    assert saved[0]["llm_recording"]["llm_request"]["config"]["tools"][0]["function_declarations"][0]["name"] == "get_weather"
    asked = len(gemini.requests)
    replay = new_session(ann, app="weather")
    replayed = _turn(ann, replay, "Rome?", "_adk_replay_config", tmp_path, 0)
    replayed += _turn(ann, replay, "Thanks!", "_adk_replay_config", tmp_path, 1)
    assert len(gemini.requests) == asked  # the model was never called
    assert _texts(replayed) == _texts(recorded) == ["get_weather", None, "Sunny in Rome.", "You are welcome."]


def test_replay_runs_the_tool_and_answers_with_the_recorded_result(ann, gemini, tmp_path):
    _record_weather(ann, gemini, tmp_path)
    path = tmp_path / "generated-recordings.yaml"
    path.write_text(path.read_text().replace("forecast: sunny", "forecast: foggy"))
    replay = new_session(ann, app="weather")
    frames = _turn(ann, replay, "Rome?", "_adk_replay_config", tmp_path, 0)
    assert frames[1]["content"]["parts"][0]["functionResponse"]["response"]["forecast"] == "foggy"  # the recorded one
    state = ann.get(f"/apps/weather/users/ann/sessions/{replay['id']}").json()["state"]
    assert state["user:last_city"] == "Rome"  # and yet the tool ran, as under google-adk's replay


def test_replay_fails_the_turn_when_the_request_differs_from_the_recording(ann, gemini, tmp_path):
    _record_weather(ann, gemini, tmp_path)
    path = tmp_path / "generated-recordings.yaml"
    original = path.read_text()
    path.write_text(original.replace("You help with the weather.", "You help with the climate.", 1))
    frames = _turn(ann, new_session(ann, app="weather"), "Rome?", "_adk_replay_config", tmp_path, 0)
    error = frames[-1]["error"]
    assert "LLM request mismatch in turn 0 for agent 'forecaster'" in error, error
    assert "climate" in error and "weather." in error  # the difference is shown
    # A different tool call fails too.
    import yaml

    recordings = yaml.safe_load(original)
    recordings["recordings"][1]["tool_recording"]["tool_call"]["args"]["city"] = "Quito"
    path.write_text(yaml.safe_dump(recordings))
    frames = _turn(ann, new_session(ann, app="weather"), "Rome?", "_adk_replay_config", tmp_path, 0)
    assert "the recording has get_weather({'city': 'Quito'})" in frames[-1]["error"]


def test_a_public_address_without_authentication_is_refused(tmp_path):
    from tests.cli_helpers import cli

    done = cli("serve", "tests/server_agents", "--host", "0.0.0.0", store=f"sqlite:///{tmp_path}/x.db", expect=1)
    assert "without authentication" in done.stderr and "--allow-public-without-auth" in done.stderr


def test_chronicle_run_chats_in_the_terminal_and_records_the_conversation(tmp_path):
    from tests.cli_helpers import cli

    store = f"sqlite:///{tmp_path}/chat.db"
    done = cli("run", "tests/server_agents/slow", "--session", "chat-1", store=store, input="hello\nwait 0\nexit\n")
    assert "[sleeper]: echo: hello" in done.stdout and "[sleeper]: Done waiting." in done.stdout
    again = cli("run", "tests/server_agents/configured", "--session", "chat-2", store=store, input="quiet\n")
    assert "[configured_agent]: Loud: QUIET" in again.stdout
    assert "echo: hello" in cli("history", "chat-1", store=store).stdout
