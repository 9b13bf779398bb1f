"""The tamper suite: edit a store directly, behind Chronicle's back, and check that `verify` reports
each edit at the right place, and that a load never serves a snapshot that disagrees with its log.

Each edit is made the way someone with the database would make it: raw SQL on the real SQLite file
or PostgreSQL server, and, for the in-memory store, a change to its dicts (where such an edit means
something). Without a seal key, ``verify`` recomputes everything derived from the logs; what it
cannot see without a key is listed in ``NEEDS_A_KEY`` (those edits are the seal's tests).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import sqlite3
from contextlib import closing
from typing import Any, Callable

import psycopg
import pytest
from eventsourcing.persistence import StoredEvent

from domain import Event, EventActions
from domain.artifact_names import ArtifactScope
from domain.chained import parts_digest, snapshot_digest
from domain.session_log import SessionLog, session_log_id
from runtime.operations.audit import Report, audit
from runtime.operations.purge import purge
from runtime.read_models import Projector
from runtime.sessions import LogSessionService
from runtime.stores import Store, open_store
from runtime.stores.application import make_transcoder
from runtime.stores.postgres import parse_postgres_url
from tests.cli_helpers import cli
from tools.demo import run_demo

# Edits that only a seal key can reveal (``chronicle seal`` / ``verify --key``; not tested here):
NEEDS_A_KEY = [
    "a chain rewritten from some version on, with every digest and link recomputed",
    "a log truncated and its catalog row's version lowered to match (or an artifact or memory log "
    "truncated where no session names the removed version)",
    "a whole log deleted with everything that names it (catalog row, memory, artifact logs)",
    "the whole purge audit log deleted",
    "a snapshot rewritten together with its digests *and* its log (only then does the refold agree)",
]

LONG = 230  # events of the long session: snapshots at versions 100 and 200
APP, USER = "demo", "ann"


async def _fill(store: Store) -> None:
    for session_id in ("one", "two"):
        await run_demo(store, app_name=APP, user_id=USER, session_id=session_id)
    sessions = LogSessionService(store)
    session = await sessions.create_session(app_name=APP, user_id=USER, session_id="long", state={"channel": "web"})
    for i in range(LONG):
        event = Event(author="user", invocation_id=f"inv-{i}", actions=EventActions(state_delta={"turn": i}))
        await sessions.append_event(session, event)
    with Projector(store) as projector:
        projector.catch_up()


class Tampered:
    """A filled store of one kind, and the raw edits that kind allows."""

    def __init__(self, kind: str, url: str):
        self.kind, self.url = kind, url
        self.store = open_store(url)
        asyncio.run(_fill(self.store))
        if kind != "memory":
            self.store.close()  # edits go to the database; each check opens the store afresh

    def fresh(self) -> Store:
        """The store as a new process would open it (for memory: the one store, caches emptied)."""
        if self.kind == "memory":
            cache = self.store.application.repository.cache
            for log_id in list(cache.cache):
                cache.get(log_id, evict=True)
            return self.store
        return open_store(self.url)

    def audit(self) -> Report:
        store = self.fresh()
        try:
            return audit(store)
        finally:
            if self.kind != "memory":
                store.close()

    # -- raw edits ---------------------------------------------------------------------------

    def sql(self, statement: str, params: tuple = (), *, blobs: bool = False) -> list[tuple]:
        if self.kind == "sqlite":
            path = self.url[len("sqlite:///"):] + ("-blobs" if blobs else "")
            with closing(sqlite3.connect(path)) as db:
                rows = db.execute(statement.replace("%s", "?"), params).fetchall()
                db.commit()
                return rows
        with psycopg.connect(**parse_postgres_url(self.url), autocommit=True) as db:
            cursor = db.execute(statement, params)
            return cursor.fetchall() if cursor.description else []

    def raw_id(self, log_id: Any) -> Any:
        return log_id.hex if self.kind == "sqlite" else log_id

    def payload(self, table: str, log_id: Any, version: int) -> dict[str, Any]:
        if self.kind == "memory":
            recorder = self.store.snapshots if table == "chronicle_snapshots" else self.store.recorder
            return json.loads(recorder.select_events(log_id, gt=version - 1, lte=version)[0].state)
        (state,) = self.sql(f"SELECT state FROM {table} WHERE originator_id = %s AND originator_version = %s",
                            (self.raw_id(log_id), version))[0]
        return json.loads(bytes(state))

    def write_payload(self, table: str, log_id: Any, version: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        if self.kind == "memory":
            recorder = self.store.snapshots if table == "chronicle_snapshots" else self.store.recorder
            with recorder._database_lock:
                for i, stored in enumerate(recorder._stored_events):
                    if str(stored.originator_id) == str(log_id) and stored.originator_version == version:
                        recorder._stored_events[i] = StoredEvent(stored.originator_id, version, stored.topic, data)
            return
        self.sql(f"UPDATE {table} SET state = %s WHERE originator_id = %s AND originator_version = %s",
                 (data, self.raw_id(log_id), version))

    def edit_payload(self, table: str, log_id: Any, version: int, change: Callable[[dict[str, Any]], None]) -> None:
        payload = self.payload(table, log_id, version)
        change(payload)
        self.write_payload(table, log_id, version, payload)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def tampered(request, tmp_path) -> Tampered:
    kind = request.param
    url = {"memory": "memory://", "sqlite": f"sqlite:///{tmp_path}/chronicle.db"}.get(kind)
    return Tampered(kind, url or request.getfixturevalue("postgres_url"))


@pytest.fixture(params=["sqlite", "postgres"])
def tampered_db(request, tmp_path) -> Tampered:
    """Edits that need a database (rows deleted, files' bytes changed)."""
    url = f"sqlite:///{tmp_path}/chronicle.db" if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    return Tampered(request.param, url)


def drifts(report: Report, kind: str) -> list[Any]:
    return [d for d in report.drifted if d.kind == kind]


LONG_LOG = session_log_id(APP, USER, "long")


def test_an_untouched_store_verifies(tampered):
    report = tampered.audit()
    assert report.ok, (report.broken, report.scoped, report.drifted)
    assert report.logs == 6  # three sessions, the artifact log of each demo session, ann's memory log


def test_a_snapshot_whose_state_was_edited_is_never_served(tampered, caplog):
    def evil(payload: dict[str, Any]) -> None:
        payload["state"]["state"]["channel"] = "evil"

    tampered.edit_payload("chronicle_snapshots", LONG_LOG, 200, evil)  # the one a load starts from
    store = tampered.fresh()
    try:
        fallbacks = store.application.snapshots.fallbacks
        with caplog.at_level(logging.WARNING, logger="chronicle.snapshots"):
            session = asyncio.run(LogSessionService(store).get_session(app_name=APP, user_id=USER, session_id="long"))
        assert session.state["channel"] == "web" and session.state["turn"] == LONG - 1
        assert fallbacks.count == 1 and fallbacks.last == (LONG_LOG, 200, "its content does not match its digest (edited)")
        assert any("at version 200 not used" in r.getMessage() for r in caplog.records)
        # time travel and rewinds read the snapshot's parts: refused there too
        assert store.nearest_snapshot(LONG_LOG, 230) is None
        snapshot, window, *_ = store.state_reads(LONG_LOG, 230, "event", [])
        assert snapshot is None and [row[1] for row in window] == list(range(1, 231))
        assert store.nearest_snapshot(LONG_LOG, 150)[0] == 100  # the untouched one still serves
    finally:
        if tampered.kind != "memory":
            store.close()
    report = tampered.audit()
    (found,) = drifts(report, "snapshot")
    assert (found.version, found.key, found.log_id) == (200, "state", str(LONG_LOG))
    assert found.found["channel"] == "evil" and found.expected["channel"] == "web"
    assert "session long (app demo, user ann)" in found.where and not report.ok


def test_a_snapshot_stripped_of_its_digests_is_replayed_and_verify_says_why(tampered):
    """A snapshot without digests (as written before they had them) is not served either."""
    def strip(payload: dict[str, Any]) -> None:
        payload["state"]["state"]["channel"] = "evil"
        del payload["digest"], payload["parts_digest"]

    tampered.edit_payload("chronicle_snapshots", LONG_LOG, 200, strip)
    store = tampered.fresh()
    try:
        session = asyncio.run(LogSessionService(store).get_session(app_name=APP, user_id=USER, session_id="long"))
        assert session.state["channel"] == "web" and store.nearest_snapshot(LONG_LOG, 230) is None
    finally:
        if tampered.kind != "memory":
            store.close()
    assert [(d.version, d.key) for d in drifts(tampered.audit(), "snapshot")] == [(200, "state")]


def test_a_snapshot_rewritten_with_its_digests_recomputed_is_caught_by_verify(tampered):
    """The load check catches an edit that leaves the digest; one that recomputes it (anyone can:
    the digest has no key) passes the load check, and only verify's refold catches it."""
    def evil(payload: dict[str, Any]) -> None:
        payload["state"]["state"]["channel"] = "evil"
        payload["parts_digest"] = parts_digest(payload["state"], SessionLog.Snapshot.PARTS)
        decoded = make_transcoder().decode(json.dumps(payload).encode())  # datetimes as a load sees them
        payload["digest"] = snapshot_digest(decoded["state"])

    tampered.edit_payload("chronicle_snapshots", LONG_LOG, 200, evil)
    found = drifts(tampered.audit(), "snapshot")
    assert [(d.version, d.key) for d in found] == [(200, "state")]


def test_scoped_state_rows_edited(tampered):
    if tampered.kind == "memory":
        tampered.store.recorder._scoped[(APP, USER)]["user:name"] = json.dumps("Eve")
        tampered.store.recorder._scoped[(APP, "")] = {"app:flag": "true"}
    else:
        value = "'\"Eve\"'" if tampered.kind == "sqlite" else "'\"Eve\"'::jsonb"
        tampered.sql(f"UPDATE chronicle_scoped_state SET value = {value} WHERE key = 'user:name'")
        tampered.sql("INSERT INTO chronicle_scoped_state VALUES ('demo', '', 'app:flag', 'true')")
    report = tampered.audit()
    assert {(m.user_id, m.key, m.stored, m.folded) for m in report.scoped} == {
        (USER, "user:name", "Eve", "Ann"), ("", "app:flag", True, None)
    }


def test_catalog_state_and_user_id_edited(tampered):
    one, two = session_log_id(APP, USER, "one"), session_log_id(APP, USER, "two")
    if tampered.kind == "memory":
        catalog = tampered.store.recorder._catalog
        catalog[one] = dataclasses.replace(catalog[one], state={"channel": "evil"})
        catalog[two] = dataclasses.replace(catalog[two], user_id="eve")
    else:
        state = "'{\"channel\": \"evil\"}'" + ("::jsonb" if tampered.kind == "postgres" else "")
        tampered.sql(f"UPDATE chronicle_sessions SET state = {state} WHERE session_id = 'one'")
        tampered.sql("UPDATE chronicle_sessions SET user_id = 'eve' WHERE session_id = 'two'")
    store = tampered.fresh()
    try:  # what the edit does: ann no longer sees session two listed
        listed = asyncio.run(LogSessionService(store).list_sessions(app_name=APP, user_id=USER)).sessions
        assert "two" not in {s.id for s in listed}
    finally:
        if tampered.kind != "memory":
            store.close()
    found = {(d.log_id, d.key): d for d in drifts(tampered.audit(), "catalog")}
    assert set(found) == {(str(one), "state"), (str(two), "user_id")}
    assert found[(str(one), "state")].found == {"channel": "evil"}
    assert found[(str(one), "state")].expected["channel"] == "web"
    assert (found[(str(two), "user_id")].found, found[(str(two), "user_id")].expected) == ("eve", USER)
    assert "session two (app demo, user ann)" in found[(str(two), "user_id")].where


def test_event_id_claims_deleted_or_pointed_elsewhere(tampered):
    """The claims make a retried append idempotent; one removed would let the retry store the event twice."""
    log_id = session_log_id(APP, USER, "one")
    if tampered.kind == "memory":
        claims = tampered.store.recorder._claims
        (gone, _), (moved, _) = sorted(((k[1], v) for k, v in claims.items() if k[0] == log_id), key=lambda c: c[1])[:2]
        del claims[(log_id, gone)]
        claims[(log_id, moved)] = 99
    else:
        rows = tampered.sql("SELECT event_id FROM chronicle_event_ids WHERE log_id = %s ORDER BY version",
                            (tampered.raw_id(log_id),))
        gone, moved = rows[0][0], rows[1][0]
        tampered.sql("DELETE FROM chronicle_event_ids WHERE log_id = %s AND event_id = %s",
                     (tampered.raw_id(log_id), gone))
        tampered.sql("UPDATE chronicle_event_ids SET version = 99 WHERE log_id = %s AND event_id = %s",
                     (tampered.raw_id(log_id), moved))
    found = {d.key: d for d in drifts(tampered.audit(), "event-id claim")}
    assert set(found) == {gone, moved}
    assert found[gone].found is None and "missing" in found[gone].reason and found[gone].version == found[gone].expected
    assert (found[moved].found, found[moved].version) == (99, found[moved].expected)
    assert all("session one (app demo, user ann)" in d.where for d in found.values())


def test_the_newest_artifact_version_deleted(tampered_db):
    """An artifact log truncated keeps a valid chain, but the session that recorded the version
    still names it."""
    log_id = ArtifactScope(APP, USER, "one").log_id
    (newest,) = tampered_db.sql("SELECT max(originator_version) FROM chronicle_events WHERE originator_id = %s",
                                (tampered_db.raw_id(log_id),))[0]
    tampered_db.sql("DELETE FROM chronicle_events WHERE originator_id = %s AND originator_version = %s",
                    (tampered_db.raw_id(log_id), newest))
    report = tampered_db.audit()
    (found,) = drifts(report, "artifact version")
    assert "session one (app demo, user ann)" in found.where and "does not hold" in found.reason
    assert found.log_id == log_id.hex and found.key == found.key.split("@")[0] + f"@{found.expected}"


def test_an_artifact_version_pointed_at_another_blob(tampered):
    log_id = ArtifactScope(APP, USER, "two").log_id

    def other_bytes(payload: dict[str, Any]) -> None:
        payload["sha256"] = "0" * 64

    tampered.edit_payload("chronicle_events", log_id, 2, other_bytes)
    (broken,) = tampered.audit().broken
    assert (broken.kind, broken.session_id, broken.version) == ("artifacts", "two", 2)
    assert "does not match its digest" in broken.reason


def test_a_memory_document_edited(tampered):
    if tampered.kind == "memory":
        scope = tampered.store.memory_index()._scopes[(APP, USER)]
        doc_id, doc = 0, scope.docs[0]
        scope.docs[doc_id] = dataclasses.replace(doc, content={"role": "user", "parts": [{"text": "evil"}]})
        source, position = doc.source, doc.position
    else:
        source, position = tampered.sql("SELECT source, position FROM chronicle_memory_docs ORDER BY source, position")[0]
        content = "'{\"role\": \"user\", \"parts\": [{\"text\": \"evil\"}]}'"
        tampered.sql(f"UPDATE chronicle_memory_docs SET content = {content}"
                     f"{'::jsonb' if tampered.kind == 'postgres' else ''} WHERE source = %s AND position = %s",
                     (source, position))
    (found,) = drifts(tampered.audit(), "memory index")
    assert found.key == f"{source}@{position}" and found.where == "the memory of user ann (app demo)"
    assert found.found["content"]["parts"] == [{"text": "evil"}] and found.expected["content"] != found.found["content"]


def test_blob_bytes_edited_or_deleted(tampered):
    store = tampered.fresh()
    names = store.blob_store().names()
    if tampered.kind != "memory":
        store.close()
    assert len(names) >= 2
    edited, deleted = names[0], names[1]
    if tampered.kind == "memory":
        blobs = tampered.store.blob_store()._blobs
        blobs[edited] = b"evil"
        del blobs[deleted]
    elif tampered.kind == "sqlite":
        tampered.sql("UPDATE chronicle_blob_data SET data = X'6576696c' WHERE id ="
                     " (SELECT data_id FROM chronicle_blobs WHERE sha256 = %s)", (edited,), blobs=True)
        tampered.sql("DELETE FROM chronicle_blobs WHERE sha256 = %s", (deleted,), blobs=True)
    else:
        tampered.sql("UPDATE chronicle_blobs SET data = 'evil'::bytea WHERE sha256 = %s", (edited,))
        tampered.sql("DELETE FROM chronicle_blobs WHERE sha256 = %s", (deleted,))
    found = {d.key: d for d in drifts(tampered.audit(), "blob")}
    assert set(found) == {edited, deleted}
    assert "do not hash to its name" in found[edited].reason and found[edited].expected == edited
    assert "missing from the blob store" in found[deleted].reason and "artifact log" in found[deleted].where


def test_a_session_deleted_together_with_its_catalog_row(tampered_db):
    log_id = tampered_db.raw_id(session_log_id(APP, USER, "two"))
    for table in ("chronicle_events", "chronicle_snapshots"):
        tampered_db.sql(f"DELETE FROM {table} WHERE originator_id = %s", (log_id,))
    tampered_db.sql("DELETE FROM chronicle_sessions WHERE log_id = %s", (log_id,))
    tampered_db.sql("DELETE FROM chronicle_event_ids WHERE log_id = %s", (log_id,))
    report = tampered_db.audit()
    (found,) = [d for d in drifts(report, "catalog") if d.key == "exists"]
    assert "session two (app demo, user ann)" in found.where and "are gone" in found.reason


def test_a_session_truncated_behind_its_catalog_row(tampered_db):
    log_id = tampered_db.raw_id(LONG_LOG)
    tampered_db.sql("DELETE FROM chronicle_events WHERE originator_id = %s AND originator_version > 220", (log_id,))
    (broken,) = tampered_db.audit().broken
    assert (broken.session_id, broken.version) == ("long", 221) and "missing from the end" in broken.reason


def test_a_read_model_row_edited(tampered):
    if tampered.kind == "memory":
        items = tampered.store.projection_storage()._items["scoped_state"]
        view_id = next(v for v in items if "user:name" in items[v])
        items[view_id]["user:name"] = json.dumps("Eve")
    else:
        value = "'\"Eve\"'" + ("::jsonb" if tampered.kind == "postgres" else "")
        tampered.sql(f"UPDATE chronicle_projection_items SET value = {value}"
                     " WHERE projection = 'scoped_state' AND item = 'user:name'")
    (found,) = drifts(tampered.audit(), "read model")
    assert found.where.startswith("read model scoped_state, fold user_state")
    assert found.found["user:name"] == "Eve" and found.expected["user:name"] == "Ann"


def test_a_purge_leaves_a_store_that_verifies_and_its_audit_log_is_chained(tampered_db):
    tampered = tampered_db  # a purge needs a database
    store = tampered.fresh()
    try:
        purge(store, APP, user_id=USER, session_id="two", reason="test")
        report = audit(store)
        assert report.ok, (report.broken, report.scoped, report.drifted)
    finally:
        store.close()
    from domain.purge_log import PURGE_LOG_ID

    def blame_someone_else(payload: dict[str, Any]) -> None:
        payload["by"] = "mallory"

    tampered.edit_payload("chronicle_events", PURGE_LOG_ID, 2, blame_someone_else)
    (broken,) = tampered.audit().broken
    assert (broken.kind, broken.version) == ("purges", 2) and "the purge audit log" in broken.where


def test_the_cli_reports_drifted_rows_with_where_and_exit_code_4(tampered_db):
    tampered_db.sql("UPDATE chronicle_sessions SET user_id = 'eve' WHERE session_id = 'two'")
    done = cli("verify", store=tampered_db.url, expect=4)
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("DRIFTED")]
    assert line.startswith("DRIFTED catalog of session two (app demo, user ann) version ") and " key user_id:" in line
    assert "(found 'eve', expected 'ann')" in line and "1 derived rows drifted" in done.stdout
    report = json.loads(cli("verify", "--json", store=tampered_db.url, expect=4).stdout)
    assert [(d["kind"], d["key"], d["found"]) for d in report["drifted"]] == [("catalog", "user_id", "eve")]


def test_the_server_verify_routes_report_the_same(tampered_db):
    from tests.server_helpers import ANN, OPS, Served

    async def slow_session() -> None:  # a session of an app the test server serves
        store = open_store(tampered_db.url)
        try:
            await LogSessionService(store).create_session(app_name="slow", user_id=USER, session_id="s", state={"a": 1})
        finally:
            store.close()

    asyncio.run(slow_session())
    state = "'{\"a\": 2}'" + ("::jsonb" if tampered_db.kind == "postgres" else "")
    tampered_db.sql(f"UPDATE chronicle_sessions SET state = {state} WHERE session_id = 's'")
    served = Served(tampered_db.url)
    try:
        with served.client(OPS) as ops:
            report = ops.get("/chronicle/verify").json()
        assert report["ok"] is False and report["broken"] == []
        assert [(d["kind"], d["key"], d["found"]) for d in report["drifted"]] == [("catalog", "state", {"a": 2})]
        with served.client(ANN) as ann:
            session = ann.get("/apps/slow/users/ann/sessions/s/verify").json()
        assert session["ok"] is False and session["broken"] is None
        assert [(d["key"], d["found"], d["expected"]) for d in session["drifted"]] == [("state", {"a": 2}, {"a": 1})]
    finally:
        served.stop()
