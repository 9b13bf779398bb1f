"""`chronicle purge`: a user's or a session's data removed for good, recorded, chains still verified."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import closing

import psycopg
import pytest
from google.genai import types

from domain import Event, EventActions
from domain.session_log import session_log_id
from runtime.artifacts import LogArtifactService
from runtime.stores.blobs import sha256_hex
from runtime.memory import LogMemoryService
from domain.purge_log import PURGE_LOG_ID
from runtime.operations.purge import plan_purge
from runtime.sessions import LogSessionService
from runtime.stores import open_store
from runtime.stores.postgres import parse_postgres_url
from tests.cli_helpers import cli, cli_json
from tools.demo import run_demo

SECRET = b"ann's passport scan, only in session s1"


@pytest.fixture
def purge_url(shared_store_url):
    """A SQLite or PostgreSQL store: ann has s1 (forked into s1-fork) and s2; bob has s3. s1 holds a
    file nobody else has."""
    url = shared_store_url

    async def build() -> None:
        store = open_store(url)
        for user, session in (("ann", "s1"), ("ann", "s2"), ("bob", "s3")):
            await run_demo(store, user_id=user, session_id=session)
        artifacts = LogArtifactService(store)
        await artifacts.save_artifact(app_name="demo", user_id="ann", session_id="s1", filename="passport.png",
                                      artifact=types.Part.from_bytes(data=SECRET, mime_type="image/png"))
        await artifacts.close()
        sessions = LogSessionService(store)
        s1 = await sessions.get_session(app_name="demo", user_id="ann", session_id="s1")
        await sessions.append_event(s1, Event(author="user", actions=EventActions(state_delta={"user:passport": "X123"})))
        await sessions.fork_session(app_name="demo", user_id="ann", session_id="s1",
                                                    new_session_id="s1-fork")
        store.close()

    asyncio.run(build())
    return url


def rows(url: str, statement: str, params: tuple = ()) -> list[tuple]:
    if url.startswith("sqlite"):
        with closing(sqlite3.connect(url[len("sqlite:///"):])) as db:
            return db.execute(statement.replace("%s", "?"), params).fetchall()
    with psycopg.connect(**parse_postgres_url(url)) as db:
        return db.execute(statement, params).fetchall()


def blob_exists(url: str, data: bytes) -> bool:
    sha = sha256_hex(data)
    if url.startswith("sqlite"):
        with closing(sqlite3.connect(url[len("sqlite:///"):] + "-blobs")) as db:
            return db.execute("SELECT 1 FROM chronicle_blobs WHERE sha256 = ?", (sha,)).fetchone() is not None
    return bool(rows(url, "SELECT 1 FROM chronicle_blobs WHERE sha256 = %s", (sha,)))


def log_ids(url: str, user: str, *sessions: str) -> list:
    ids = [session_log_id("demo", user, s) for s in sessions]
    return [i.hex for i in ids] if url.startswith("sqlite") else ids


def memory_search(url: str, user: str, query: str) -> list:
    async def search() -> list:
        store = open_store(url)
        found = await LogMemoryService(store).search_memory(app_name="demo", user_id=user, query=query)
        store.close()
        return found.memories

    return asyncio.run(search())


def memory_sessions(url: str, user: str, query: str) -> set[str]:
    """The sessions the memories found for `query` come from (google-adk's entries do not say)."""
    async def sessions() -> set[str]:
        store = open_store(url)
        memory = LogMemoryService(store)
        found = await memory.search_memory(app_name="demo", user_id=user, query=query)
        of = {d.event_id: d.session_id for d in await memory.documents(app_name="demo", user_id=user)}
        store.close()
        return {of[m.id] for m in found.memories}

    return asyncio.run(sessions())


def test_without_yes_nothing_is_deleted(purge_url):
    done = cli("purge", "--app", "demo", "--user", "ann", store=purge_url, expect=1)
    assert "permanently destroys" in done.stdout and "session s1-fork" in done.stdout
    assert "Nothing was deleted" in done.stderr and "--yes" in done.stderr
    assert len(cli_json("sessions", store=purge_url)) == 4
    assert "Name the app" in cli("purge", "--user", "ann", "--yes", store=purge_url, expect=1).stderr
    assert "Say what to purge" in cli("purge", "--yes", store=purge_url, expect=2).stderr


def test_purge_a_user(purge_url):
    assert memory_search(purge_url, "ann", "table")
    report = cli_json("purge", "--app", "demo", "--user", "ann", "--by", "alice", "--reason", "GDPR #42", "--yes",
                      store=purge_url)
    assert sorted(s["session_id"] for s in report["sessions"]) == ["s1", "s1-fork", "s2"]
    assert report["counts"]["catalog_rows"] == 3 and report["counts"]["blobs"] >= 1
    assert all(len(s["chain_head"]) == 64 for s in report["sessions"])

    # Gone from the log, the catalog, the scoped state, the memory index, the read models and the blobs.
    ann = log_ids(purge_url, "ann", "s1", "s1-fork", "s2")
    for table, column in (("chronicle_events", "originator_id"), ("chronicle_event_ids", "log_id"),
                          ("chronicle_sessions", "log_id")):
        for log_id in ann:
            assert rows(purge_url, f"SELECT count(*) FROM {table} WHERE {column} = %s", (log_id,)) == [(0,)]
    assert rows(purge_url, "SELECT count(*) FROM chronicle_scoped_state WHERE user_id = 'ann'") == [(0,)]
    assert rows(purge_url, "SELECT count(*) FROM chronicle_memory_docs WHERE user_id = 'ann'") == [(0,)]
    assert rows(purge_url, "SELECT count(*) FROM chronicle_projection_items WHERE key LIKE %s", ("demo/ann%",)) == [(0,)]
    assert rows(purge_url, "SELECT count(*) FROM chronicle_projection_history WHERE session LIKE %s",
                ("demo/ann/%",)) == [(0,)]
    assert not blob_exists(purge_url, SECRET)
    assert memory_search(purge_url, "ann", "table") == []
    assert memory_search(purge_url, "bob", "table")
    analytics = cli_json("analytics", "--app", "demo", store=purge_url) if _has("analytics") else None
    if analytics is not None:
        assert "ann" not in json.dumps(analytics["demo"]["users"])

    # bob is untouched (his booking.txt shares its bytes with ann's, so those stay).
    assert [r["session_id"] for r in cli_json("sessions", store=purge_url)] == ["s3"]
    assert cli_json("state-at", "s3", store=purge_url)["artifacts"] == {"booking.txt": 1}

    # Every remaining chain verifies, the purge audit log included, and it says who and why.
    assert "every chain holds" in cli("verify", store=purge_url).stdout
    audit = [json.loads(line) for line in cli("export", "--all", store=purge_url).stdout.splitlines()]
    purged = [r["payload"] for r in audit if r["topic"] == "chronicle:PurgeLog.Purged"]
    assert len(purged) == 1 and purged[0]["by"] == "alice" and purged[0]["reason"] == "GDPR #42"
    assert purged[0]["scope"] == {"app_name": "demo", "user_id": "ann", "session_id": None}
    assert {s["session_id"] for s in purged[0]["sessions"]} == {"s1", "s1-fork", "s2"}
    assert "Book me a table" not in json.dumps(purged)  # the record names what went, not its content


def test_purge_a_session_takes_its_forks_and_keeps_the_rest(purge_url):
    text = cli("purge", "--session", "s1", "--user", "ann", "--yes", "--by", "ops", store=purge_url).stdout
    assert "purged session s1 of app demo: s1, s1-fork" in text and "recorded as event" in text
    assert sorted(r["session_id"] for r in cli_json("sessions", store=purge_url)) == ["s2", "s3"]
    assert not blob_exists(purge_url, SECRET)
    # ann's other session, her memory of it and her user: state (recomputed from what remains) stay.
    s2 = log_ids(purge_url, "ann", "s2")[0]
    assert rows(purge_url, "SELECT count(*) FROM chronicle_events WHERE originator_id = %s", (s2,)) == [(11,)]
    assert memory_sessions(purge_url, "ann", "table") == {"s2"}
    state = cli_json("state-at", "s2", store=purge_url)
    assert "user:passport" not in state["user_state"]  # only s1 wrote it: the user: state is recomputed
    assert state["user_state"]["user:bookings_made"] == 4  # s2's own writes remain
    assert "user:passport" not in cli("export", "s2", "-f", "adk", store=purge_url).stdout
    assert rows(purge_url, "SELECT count(*) FROM chronicle_scoped_state WHERE key = 'user:passport'") == [(0,)]
    assert "every chain holds" in cli("verify", store=purge_url).stdout

    # A second purge appends to the same audit log.
    cli("purge", "--session", "s3", "--yes", store=purge_url)
    audit = [json.loads(line) for line in cli("export", "--all", store=purge_url).stdout.splitlines()]
    assert [r["version"] for r in audit if r["topic"].startswith("chronicle:PurgeLog")] == [1, 2, 3]
    # s2, the file it saved, ann's and bob's memory logs and the audit log
    assert "checked 5 logs" in cli("verify", store=purge_url).stdout


def test_the_plan_names_what_would_go(purge_url):
    store = open_store(purge_url)
    try:
        plan = plan_purge(store, "demo", session_id="s1", user_id="ann")
        assert [(s.row.session_id, s.fork_of) for s in plan.sessions] == [("s1", None), ("s1-fork", "s1")]
        assert sha256_hex(SECRET) in plan.unreferenced_blobs
        assert not store.recorder.select_events(PURGE_LOG_ID)
    finally:
        store.close()


def _has(command: str) -> bool:
    return command in cli("--help").stdout
