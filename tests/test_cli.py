"""The `chronicle` command, run for real in a subprocess against a SQLite file."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.cli_helpers import cli, cli_json

COMMANDS = ["demo", "sessions", "history", "state-at", "diff", "rewind", "fork", "replay", "export", "verify",
            "projections", "analytics", "import-adk", "purge", "bench"]


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory):
    """A store with one demo conversation in it (made once; tests work on copies)."""
    path = tmp_path_factory.mktemp("demo") / "chronicle.db"
    run = cli_json("demo", "--session", "s1", store=f"sqlite:///{path}")
    assert run["session_id"] == "s1"
    return path


@pytest.fixture
def store(demo_db, tmp_path):
    """A private copy of the demo store."""
    for suffix in ("", "-blobs", "-wal", "-shm"):
        source = demo_db.with_name(demo_db.name + suffix)
        if source.exists():
            shutil.copy(source, tmp_path / f"chronicle.db{suffix}")
    return f"sqlite:///{tmp_path}/chronicle.db"


def invocations(store: str, session: str = "s1") -> list[dict]:
    return cli_json("history", session, store=store)["timeline"]["invocations"]


def test_help_lists_every_command_and_each_has_help():
    top = cli("--help").stdout
    for name in COMMANDS:
        assert name in top
    assert "CHRONICLE_STORE" in top and "Exit codes" in top
    for name in ("sessions", "history", "state-at", "export", "verify", "purge"):
        assert "--store" in cli(name, "--help").stdout


def test_no_command_is_a_usage_error():
    done = cli(expect=2)
    assert "COMMAND" in done.stderr


def test_demo_runs_a_real_conversation(tmp_path):
    done = cli("demo", "--session", "d1", store=f"sqlite:///{tmp_path}/new.db")
    text = done.stdout
    assert "→ book_table" in text and "← book_table" in text  # the tool call and its result
    assert "state booking=" in text and "user:bookings_made=" in text
    assert "artifact booking.txt v0" in text
    assert "temp:" not in text  # temp: state is never stored
    assert "history d1" in done.stderr  # what to try next
    assert (tmp_path / "new.db").exists()


def test_demo_json_reports_state_and_artifacts(demo_db):
    state = cli_json("state-at", "s1", store=f"sqlite:///{demo_db}")
    assert state["state"]["booking"] == {"people": 3, "time": "19:30"}
    assert state["user_state"]["user:bookings_made"] >= 2
    assert state["artifacts"] == {"booking.txt": 1}


def test_sessions_lists_and_filters(store):
    cli("demo", "--session", "s2", "--user", "bob", store=store)
    rows = cli_json("sessions", store=store)
    assert {(r["user_id"], r["session_id"]) for r in rows} == {("ann", "s1"), ("bob", "s2")}
    assert [r["session_id"] for r in cli_json("sessions", "--user", "bob", store=store)] == ["s2"]
    assert cli_json("sessions", "--app", "other", store=store) == []
    assert cli_json("sessions", "--since", "2999-01-01", store=store) == []
    assert len(cli_json("sessions", "--since", "1d", "--until", "2999-01-01T00:00Z", store=store)) == 2
    assert [r["session_id"] for r in cli_json("sessions", "--limit", "1", store=store)] == ["s2"]  # newest first
    plain = cli("sessions", store=store).stdout
    assert "\x1b[" not in plain  # piped: no colour
    assert plain.splitlines()[0].split()[:3] == ["app", "user", "session"]
    assert "\x1b[" in cli("sessions", "--color", "always", store=store).stdout


def test_sessions_shows_deleted_on_request(store):
    import asyncio

    from runtime.sessions import session_service_from_url

    async def delete() -> None:
        service = session_service_from_url(store)
        await service.delete_session(app_name="demo", user_id="ann", session_id="s1")
        await service.close()

    asyncio.run(delete())
    assert cli_json("sessions", store=store) == []
    assert [r["deleted"] for r in cli_json("sessions", "--all", store=store)] == [True]
    assert "deleted" in cli("sessions", "--deleted", store=store).stdout
    assert "deleted" in cli("history", "s1", store=store).stdout  # audits still read a deleted session


def test_history_shows_the_timeline(store):
    text = cli("history", "s1", store=store).stdout
    assert "invocation e-" in text
    assert 'book_table(people=2, time="19:30")' in text and 'book_table(people=3, time="19:30")' in text
    assert '"status": "confirmed"' in text
    assert "artifact booking.txt v0" in text and "artifact booking.txt v1" in text
    assert "tokens" in text
    data = cli_json("history", "s1", store=store)
    timeline = data["timeline"]
    assert len(timeline["invocations"]) == 3
    first = timeline["invocations"][0]
    assert first["steps"][1]["tool_calls"][0] == {"id": first["steps"][1]["tool_calls"][0]["id"],
                                                  "name": "book_table", "args": {"people": 2, "time": "19:30"}}
    assert first["steps"][2]["state_changes"]["booking"] == {"people": 2, "time": "19:30"}


def test_unknown_session_names_close_matches(store):
    done = cli("history", "s11", store=store, expect=1)
    assert "No session 's11'" in done.stderr and "Did you mean: s1 (app demo, user ann)" in done.stderr
    assert done.stdout == ""


def test_a_store_that_cannot_be_opened_says_why(tmp_path):
    missing = cli("sessions", store=f"sqlite:///{tmp_path}/typo.db", expect=3)
    assert "does not exist" in missing.stderr and not (tmp_path / "typo.db").exists()
    bad = cli("sessions", store="mysql://localhost/db", expect=3)
    assert "Unknown store URL" in bad.stderr
    down = cli("sessions", store="postgresql://ann:secret@127.0.0.1:1/db", expect=3)
    assert "Connection refused" in down.stderr or "connection" in down.stderr.lower()
    assert "secret" not in down.stderr  # passwords are not echoed
    env = cli("sessions", env={"CHRONICLE_STORE": f"sqlite:///{tmp_path}/env.db"}, expect=3)
    assert "env.db" in env.stderr


def test_state_at_and_diff(store):
    first, second, _ = invocations(store)
    before = cli_json("state-at", "s1", f"before:{second['invocation_id']}", store=store)
    assert before["state"]["booking"] == {"people": 2, "time": "19:30"} and before["artifacts"] == {"booking.txt": 0}
    at_v1 = cli_json("state-at", "s1", "v1", store=store)
    assert at_v1["state"] == {"channel": "web"} and at_v1["version"] == 1
    by_event = cli_json("state-at", "s1", first["steps"][2]["event_id"], store=store)
    assert by_event["version"] == first["steps"][2]["version"]
    assert "booking" in cli("state-at", "s1", "v4", store=store).stdout
    bad = cli("state-at", "s1", "v99", store=store, expect=1)
    assert "versions 1 to" in bad.stderr

    diff = cli_json("diff", "s1", "v1", f"after:{first['invocation_id']}", store=store)
    booking = next(c for c in diff["changes"] if c["key"] == "booking")
    assert booking["before"] == {"present": False}
    assert booking["after"] == {"present": True, "value": {"people": 2, "time": "19:30"}}
    assert booking["writes"][0]["author"] == "concierge"
    text = cli("diff", "s1", "v1", store=store).stdout
    assert "(absent)" in text and "booking.txt" in text


def test_rewind_then_history_marks_the_rewound_turns(store):
    _, second, third = invocations(store)
    done = cli("rewind", "s1", "--before", second["invocation_id"][:13], store=store)  # a unique prefix will do
    assert f"to before invocation {second['invocation_id']}" in done.stdout and "booking.txt" in done.stdout
    state = cli_json("state-at", "s1", store=store)
    assert state["state"]["booking"] == {"people": 2, "time": "19:30"}
    text = cli("history", "s1", store=store).stdout
    assert text.count("[REWOUND by rewind at v12]") == 2 and "REWIND at v12" in text
    rewound = {i["invocation_id"]: i["rewound"] for i in invocations(store)}
    assert rewound[second["invocation_id"]] and rewound[third["invocation_id"]]
    typo = cli("rewind", "s1", "--before", second["invocation_id"][:-1] + "x", store=store, expect=1)
    assert "Did you mean" in typo.stderr
    hidden = cli("fork", "s1", "--at", third["invocation_id"], store=store, expect=1)
    assert "taken back by a rewind" in hidden.stderr
    md = cli("export", "s1", "-f", "markdown", store=store).stdout
    assert "## ~~Invocation" in md and "**Rewind** back to before invocation" in md


def test_fork(store):
    first, second, _ = invocations(store)
    fork = cli_json("fork", "s1", "--at", second["invocation_id"], "--new-id", "s1-what-if", store=store)
    assert fork["session_id"] == "s1-what-if" and fork["state"]["booking"] == {"people": 2, "time": "19:30"}
    data = cli_json("history", "s1-what-if", store=store)
    assert data["forked_from"]["session_id"] == "s1"
    assert [i["invocation_id"] for i in data["timeline"]["invocations"]] == [first["invocation_id"]]
    again = cli("fork", "s1", "--new-id", "s1-what-if", store=store, expect=1)
    assert "already exists" in again.stderr


def test_export_formats(store, tmp_path):
    lines = cli("export", "s1", store=store).stdout.splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["version"] for r in records] == list(range(1, len(records) + 1))
    assert records[0]["topic"] == "chronicle:SessionLog.Created" and "chain" in records[0]["payload"]

    md = cli("export", "s1", "--format", "markdown", store=store).stdout
    assert md.startswith("# Session `s1`") and "## Invocation" in md and "calls `book_table`" in md

    adk = json.loads(cli("export", "s1", "-f", "adk", store=store).stdout)
    assert adk["id"] == "s1" and adk["appName"] == "demo" and adk["userId"] == "ann"
    assert len(adk["events"]) == 10 and adk["events"][0]["invocationId"]
    assert adk["state"]["booking"] == {"people": 3, "time": "19:30"}

    target = tmp_path / "all.jsonl"
    done = cli("export", "--all", "-o", str(target), store=store)
    assert "wrote" in done.stderr
    topics = {json.loads(line)["topic"] for line in target.read_text().splitlines()}
    assert {"chronicle:SessionLog.Recorded", "chronicle:ArtifactLog.Saved", "chronicle:MemoryLog.Created"} <= topics
    cli("export", store=store, expect=2)  # a usage error
