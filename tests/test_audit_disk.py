"""Audits that survive every edit of the rows they read, and that see the disk: a stored event's
topic changed, a SQLite file's pages overwritten with random bytes. `verify` reports each with
exit 4 and says where (and, for a damaged file, what to restore); it never crashes or exits 3."""

from __future__ import annotations

import dataclasses
import json
import os
import random

import pytest

from eventsourcing.persistence import StoredEvent

from domain.session_log import SessionLog, session_log_id
from tests.cli_helpers import cli
from tests.test_tamper import APP, USER, Tampered, tampered, tampered_db  # noqa: F401 - fixtures

pytestmark = pytest.mark.postgres


@pytest.mark.parametrize("topic", [SessionLog.Rewound.TOPIC, SessionLog.Deleted.TOPIC, SessionLog.Created.TOPIC,
                                   "chronicle:NoSuchEvent"])
def test_a_changed_topic_is_a_broken_link_not_a_crash(tampered, topic):
    log_id = session_log_id(APP, USER, "one")
    if tampered.kind == "memory":
        recorder = tampered.store.recorder
        with recorder._database_lock:
            for i, stored in enumerate(recorder._stored_events):
                if stored.originator_id == log_id and stored.originator_version == 3:
                    recorder._stored_events[i] = StoredEvent(stored.originator_id, 3, topic, stored.state)
        audited = tampered.audit()
        report = {"ok": audited.ok, **json.loads(json.dumps(dataclasses.asdict(audited), default=str))}
    else:
        tampered.sql("UPDATE chronicle_events SET topic = %s WHERE originator_id = %s AND originator_version = 3",
                     (topic, tampered.raw_id(log_id)))
        report = json.loads(cli("verify", "--json", store=tampered.url, expect=4).stdout)
    assert report["ok"] is False
    problems = [(b["session_id"], b["version"]) for b in report["broken"]] + [d["where"] for d in report["drifted"]]
    assert ("one", 3) in problems or any("session one" in str(p) for p in problems), report


def _overwrite_page(path: str, page: int, seed: int) -> None:
    """4 KiB of random bytes over one page of a SQLite file (its page size read from its header)."""
    with open(path, "r+b") as f:
        header = f.read(100)
        size = int.from_bytes(header[16:18], "big")
        size = 65536 if size == 1 else size
        f.seek((page - 1) * size)
        f.write(random.Random(seed).randbytes(min(4096, size)))


def _root_page(path: str, table: str) -> int:
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(path)) as db:
        return db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]


@pytest.fixture
def sqlite_store(tmp_path) -> Tampered:
    return Tampered("sqlite", f"sqlite:///{tmp_path}/chronicle.db")


@pytest.mark.parametrize("where", ["middle", "events", "blobs"])
def test_damaged_sqlite_pages_are_reported_with_what_to_restore(sqlite_store, where):
    path = sqlite_store.url[len("sqlite:///"):]
    cli("verify", store=sqlite_store.url)  # whole before
    if where == "blobs":
        _overwrite_page(path + "-blobs", _root_page(path + "-blobs", "chronicle_blobs"), 1)
    elif where == "events":
        _overwrite_page(path, _root_page(path, "chronicle_events"), 2)
    else:
        _overwrite_page(path, os.path.getsize(path) // 4096 // 2, 3)
    done = cli("verify", store=sqlite_store.url, expect=4)
    assert "CORRUPT" in done.stdout and "chronicle.db*" in done.stdout, done.stdout + done.stderr
    report = json.loads(cli("verify", "--json", store=sqlite_store.url, expect=4).stdout)
    assert report["ok"] is False and report["corrupt"] and "chronicle.db*" in report["restore"]


def test_a_whole_database_passes_its_integrity_check(tampered):
    store = tampered.fresh()
    try:
        assert store.integrity_problems() == []
    finally:
        if tampered.kind != "memory":
            store.close()
    report = tampered.audit()
    assert report.ok and report.corrupt == []


# -- PostgreSQL: a private server whose files the test damages ------------------------------------


def _pg_restart(server, write: "Callable[[], None]") -> None:  # noqa: F821 - a string annotation
    """Stops the server (its pages flushed), runs ``write`` on its files, starts it again."""
    import subprocess

    data = f"{server.directory}/data"
    ctl = [*server._as_user, f"{server._bin}/pg_ctl", "-D", data]
    subprocess.run([*ctl, "-m", "fast", "stop"], capture_output=True, check=True)
    write()
    options = f"-p {server.port} -k {server.directory} -c listen_addresses=127.0.0.1"
    subprocess.run([*ctl, "-o", options, "-l", f"{server.directory}/log", "-w", "start"], capture_output=True, check=True)


@pytest.mark.parametrize("what", ["table", "index"])
def test_damaged_postgresql_pages_are_reported_with_what_to_restore(what):
    """Random bytes over a page of the events table (found by reading every row back) or of one of
    its B-tree indexes (found by amcheck, installed here; a scan of the rows never reads it)."""
    import asyncio

    import psycopg

    from tests.test_tamper import _fill
    from runtime.stores import open_store
    from tools.pg_server import start_postgres

    server = start_postgres(fsync=True)
    try:
        url = server.create_database("damaged")
        store = open_store(url)
        asyncio.run(_fill(store))
        store.close()
        with psycopg.connect(url, autocommit=True) as db:
            db.execute("CREATE EXTENSION amcheck")
            relation = "chronicle_events" if what == "table" else db.execute(
                "SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = 'chronicle_events'::regclass"
                " ORDER BY indexrelid LIMIT 1").fetchone()[0]
            (path,) = db.execute("SELECT pg_relation_filepath(%s)", (relation,)).fetchone()
            db.execute("CHECKPOINT")
        cli("verify", store=url)  # whole before
        block = 0 if what == "table" else 1  # an index's block 0 is its metapage
        _pg_restart(server, lambda: _scribble(f"{server.directory}/data/{path}", block * 8192))
        done = cli("verify", store=url, expect=4)
        assert "CORRUPT" in done.stdout and relation in done.stdout and "restore the database" in done.stdout, done.stdout
    finally:
        server.stop()


def _scribble(path: str, offset: int) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(random.Random(offset).randbytes(4096))
