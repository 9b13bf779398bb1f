"""Tamper evidence: edit the database with SQL behind Chronicle's back; `chronicle verify` finds it."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import closing

import psycopg
import pytest

from domain.session_log import session_log_id
from runtime.stores import open_store
from runtime.stores.postgres import parse_postgres_url
from tests.cli_helpers import cli
from tools.demo import run_demo

SESSIONS = ["edited", "removed", "reordered", "truncated", "intact"]


@pytest.fixture
def demo_url(shared_store_url):
    """A SQLite or PostgreSQL store (one SQL can edit) holding a demo run in each of SESSIONS."""
    url = shared_store_url
    store = open_store(url)
    for session_id in SESSIONS:
        asyncio.run(run_demo(store, session_id=session_id))
    store.close()
    return url


def sql(url: str, statement: str, params: tuple = ()) -> None:
    if url.startswith("sqlite"):
        with closing(sqlite3.connect(url[len("sqlite:///"):])) as db:
            db.execute(statement.replace("%s", "?"), params)
            db.commit()
    else:
        with psycopg.connect(**parse_postgres_url(url), autocommit=True) as db:
            db.execute(statement, params)


def log_id(url: str, session_id: str):
    value = session_log_id("demo", "ann", session_id)
    return value.hex if url.startswith("sqlite") else value


def edit_text(url: str, version: int) -> None:
    if url.startswith("sqlite"):
        change = "CAST(replace(CAST(state AS TEXT), 'two tonight', 'ten tonight') AS BLOB)"
    else:
        change = "convert_to(replace(convert_from(state, 'UTF8'), 'two tonight', 'ten tonight'), 'UTF8')"
    sql(url, f"UPDATE chronicle_events SET state = {change} WHERE originator_id = %s AND originator_version = %s",
        (log_id(url, "edited"), version))


def test_verify_passes_then_catches_every_kind_of_tampering(demo_url):
    clean = cli("verify", store=demo_url)
    # five sessions, the file each saved (an artifact log per session) and the user's memory log
    assert "every chain holds" in clean.stdout and "checked 11 logs" in clean.stdout

    edit_text(demo_url, 5)  # the model's answer: "Done: a table for two tonight…"
    sql(demo_url, "DELETE FROM chronicle_events WHERE originator_id = %s AND originator_version = 6",
        (log_id(demo_url, "removed"),))
    for a, b in ((3, -3), (4, 3), (-3, 4)):  # swap versions 3 and 4
        sql(demo_url, "UPDATE chronicle_events SET originator_version = %s WHERE originator_id = %s"
            " AND originator_version = %s", (b, log_id(demo_url, "reordered"), a))
    sql(demo_url, "DELETE FROM chronicle_events WHERE originator_id = %s AND originator_version >= 10",
        (log_id(demo_url, "truncated"),))

    done = cli("verify", store=demo_url, expect=4)
    lines = {line.split()[2]: line for line in done.stdout.splitlines() if line.startswith("BROKEN")}
    assert set(lines) == {"edited", "removed", "reordered", "truncated"}
    assert "at version 5 (event " in lines["edited"] and "does not match its digest" in lines["edited"]
    assert "at version 6" in lines["removed"] and "version 6 is missing" in lines["removed"]
    assert "at version 3" in lines["reordered"] and "edited, removed or reordered" in lines["reordered"]
    assert "at version 10" in lines["truncated"] and "missing from the end" in lines["truncated"]
    assert "app demo, user ann" in lines["edited"]
    assert "4 broken" in done.stdout

    report = json.loads(cli("verify", "--json", store=demo_url, expect=4).stdout)
    assert report["ok"] is False and report["logs"] == 11
    edited = next(b for b in report["broken"] if b["session_id"] == "edited")
    assert edited["version"] == 5 and edited["event_id"]
    assert "intact" not in {b["session_id"] for b in report["broken"]}
    assert "every chain holds" in cli("verify", "--session", "intact", store=demo_url).stdout


def test_verify_finds_a_catalog_row_removed_or_a_genesis_removed(demo_url):
    sql(demo_url, "DELETE FROM chronicle_sessions WHERE session_id = 'edited'")
    sql(demo_url, "DELETE FROM chronicle_events WHERE originator_id = %s AND originator_version = 1",
        (log_id(demo_url, "removed"),))
    done = cli("verify", store=demo_url, expect=4)
    assert "session edited" in done.stdout and "no row for this log" in done.stdout
    assert "session removed" in done.stdout and "version 1 is missing" in done.stdout


def test_verify_finds_an_artifact_version_or_a_memory_event_edited(demo_url):
    """Artifact and memory logs are chained like sessions: pointing a version at other bytes, or
    changing what memory says a session is, is caught and said where."""
    from domain.artifact_names import ArtifactScope
    from domain.memory_log import memory_log_id

    def raw(log_id):
        return log_id.hex if demo_url.startswith("sqlite") else log_id

    if demo_url.startswith("sqlite"):
        edit = "CAST(replace(CAST(state AS TEXT), '{old}', '{new}') AS BLOB)"
    else:
        edit = "convert_to(replace(convert_from(state, 'UTF8'), '{old}', '{new}'), 'UTF8')"
    artifacts, memory = ArtifactScope("demo", "ann", "intact").log_id, memory_log_id("demo", "ann")
    other_bytes = edit.format(old='"sha256":"', new='"sha256":"0')
    sql(demo_url, f"UPDATE chronicle_events SET state = {other_bytes} WHERE originator_id = %s AND originator_version = 2",
        (raw(artifacts),))
    other_session = edit.format(old="intact", new="edited")
    sql(demo_url, f"UPDATE chronicle_events SET state = {other_session} WHERE originator_id = %s AND originator_version > 1",
        (raw(memory),))
    done = cli("verify", store=demo_url, expect=4)
    broken = [line for line in done.stdout.splitlines() if line.startswith("BROKEN")]
    assert len(broken) == 2 and "2 broken" in done.stdout
    assert any("the artifacts of session intact (app demo, user ann" in line and "at version 2" in line
               and "does not match its digest" in line for line in broken)
    assert any("the memory of user ann (app demo" in line and "does not match its digest" in line for line in broken)
    report = json.loads(cli("verify", "--json", store=demo_url, expect=4).stdout)
    assert sorted(b["kind"] for b in report["broken"]) == ["artifacts", "memory"]


def test_verify_finds_shared_state_rows_that_drifted_from_the_log(demo_url):
    """The app:/user: rows sessions read are a copy of what the log folds to; verify compares them."""
    assert "every chain holds" in cli("verify", store=demo_url).stdout
    value = "'99'" if demo_url.startswith("sqlite") else "'99'::jsonb"
    sql(demo_url, f"UPDATE chronicle_scoped_state SET value = {value} WHERE key = 'user:bookings_made'")
    sql(demo_url, "DELETE FROM chronicle_scoped_state WHERE key = 'user:name'")

    done = cli("verify", store=demo_url, expect=4)
    drifted = sorted(line for line in done.stdout.splitlines() if line.startswith("DRIFTED"))
    assert len(drifted) == 2 and "2 shared values drifted" in done.stdout
    assert drifted[0].startswith("DRIFTED user:bookings_made of user ann of app demo: stored 99, the log says ")
    assert drifted[1] == "DRIFTED user:name of user ann of app demo: the stored row is missing"
    report = json.loads(cli("verify", "--json", "--app", "demo", "--user", "ann", store=demo_url, expect=4).stdout)
    assert report["ok"] is False and report["broken"] == []
    assert {(m["key"], m["stored"]) for m in report["scoped"]} == {("user:bookings_made", 99), ("user:name", None)}
    assert "every chain holds" in cli("verify", "--app", "other", store=demo_url).stdout
