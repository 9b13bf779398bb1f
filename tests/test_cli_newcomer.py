"""What a newcomer meets at the command line: `prove` takes the event as `history` shows it, and
`history` shows the ids `prove` and `state-at event:ID` take; `serve` says where the viewer is,
runs without AGENTS_DIR, and a busy port is one line and exit 1 (3 means the store cannot be
opened). Real commands on a real SQLite store."""

from __future__ import annotations

import socket

from tests.cli_helpers import cli, cli_json
from tests.server_helpers import Served


def test_history_shows_the_ids_prove_takes_and_prove_takes_the_version_history_shows(tmp_path):
    store = f"sqlite:///{tmp_path / 'ids.db'}"
    cli("demo", "--session", "d1", store=store)
    steps = [s for inv in cli_json("history", "d1", store=store)["timeline"]["invocations"] for s in inv["steps"]]
    third = next(s for s in steps if s["version"] == 3)
    assert third["event_id"] and all(s["event_id"] for s in steps)
    full = cli("history", "d1", "--full", store=store).stdout
    assert all(f"event {s['event_id']}" in full for s in steps)
    assert "event " + third["event_id"] not in cli("history", "d1", store=store).stdout  # the short form stays short
    key = str(tmp_path / "seal.key")
    cli("seal", "--new-key", key, store=store)
    cli("seal", "--key", key, store=store)
    proofs = [cli_json("prove", "d1", form, "--key", key + ".pub", store=store)
              for form in ("v3", "3", f"event:{third['event_id']}", third["event_id"])]
    assert all(p["event_id"] == third["event_id"] and p["version"] == 3 and p["holds"] for p in proofs)
    for wrong in ("v1", "v99"):  # the creation is no event; past the end is nothing
        refused = cli("prove", "d1", wrong, "--key", key, store=store, expect=1)
        assert "no event at version" in refused.stderr and "chronicle history d1" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1


def test_serve_says_where_the_viewer_is_and_runs_without_agents(tmp_path):
    store = f"sqlite:///{tmp_path / 'serve.db'}"
    cli("demo", "--session", "d1", store=store)
    server = Served(store, agents_dir=None, tokens=None)
    try:
        with server.client(None) as client:
            assert client.get("/list-apps").json() == []
            history = client.get("/apps/demo/users/ann/sessions/d1/history")
            assert history.status_code == 200 and history.json()["timeline"]["events"] == 10
            assert client.get("/apps/demo/users/ann/sessions/nope/history").status_code == 404
            # what runs the agent needs the app
            assert client.post("/apps/demo/users/ann/sessions/d1/replay", json={}).status_code == 404
            first = history.json()["timeline"]["invocations"][1]["invocation_id"]
            rewound = client.post("/apps/demo/users/ann/sessions/d1/rewind", json={"invocationId": first})
            assert rewound.status_code == 200, rewound.text  # a rewind needs only the log
            assert client.get("/apps/demo/users/ann/sessions/d1").json()["state"]["booking"]["people"] == 2
    finally:
        log = server.stop()
    assert f"viewer at {server.url}/ui" in log and "no AGENTS_DIR" in log


def test_a_busy_port_is_one_line_and_exit_1(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = cli("serve", "--port", str(port), store=f"sqlite:///{tmp_path / 'busy.db'}", expect=1)
    assert done.stderr.strip().splitlines()[-1] == (
        f"chronicle: Port {port} on 127.0.0.1 is in use: stop what holds it or pick another with --port.")
    assert "Traceback" not in done.stderr
