"""Sealing: signed checkpoints of every log's head make rewriting, truncation and deletion evident.

The tampering is done as the database's owner would: raw SQL on the real SQLite file or PostgreSQL
database, with a chain rewritten by recomputing every link with the domain's own chain functions
(which plain `verify` cannot tell from the original). `verify --key` catches each; a wrong key does
not vouch for the checkpoints, so it reports them refused and never judges the logs by them.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import stat
from contextlib import closing
from typing import Any, Callable
from uuid import UUID

import psycopg
import pytest

from domain import chain as hash_chain
from domain import merkle
from domain.artifact_names import ArtifactScope
from domain.checkpoint import Checkpoint
from domain.checkpoint_log import CHECKPOINT_LOG_ID, next_events
from domain.memory_log import memory_log_id
from domain.purge_log import PURGE_LOG_ID
from domain.seal_keys import ED25519, HMAC_SHA256, SealKeyError, new_key, parse_key
from domain.session_log import session_log_id
from runtime.operations.seal import check_seals, prove, seal, stored_checkpoints, write_new_key
from runtime.sessions import LogSessionService
from runtime.sessions.verify import decode_payload
from runtime.stores import open_store
from runtime.stores.postgres import parse_postgres_url
from tests.cli_helpers import cli
from tools.demo import run_demo

# -- raw edits of the real database (what the database's owner can do) -----------------------


def sql(url: str, statement: str, params: tuple = ()) -> list[tuple]:
    if url.startswith("sqlite"):
        with closing(sqlite3.connect(url[len("sqlite:///"):])) as db:
            rows = db.execute(statement.replace("%s", "?"), params).fetchall()
            db.commit()
            return rows
    with psycopg.connect(**parse_postgres_url(url), autocommit=True) as db:
        cursor = db.execute(statement, params)
        return cursor.fetchall() if cursor.description else []


def raw(url: str, log_id: UUID) -> Any:
    return log_id.hex if url.startswith("sqlite") else log_id


def session_id_of(name: str) -> UUID:
    return session_log_id("demo", "ann", name)


def rewrite_chain(url: str, log_id: UUID, from_version: int, edit: Callable[[dict], None]) -> None:
    """Edits the event at ``from_version`` and recomputes the digest and link of it and of every
    event after it with domain.chain, as someone who knows the format would."""
    store = open_store(url)
    transcoder = store.application.mapper.transcoder
    rows = sql(url, "SELECT originator_version, topic, state FROM chronicle_events WHERE originator_id = %s"
               " ORDER BY originator_version", (raw(url, log_id),))
    previous = hash_chain.GENESIS
    for version, topic, state in rows:
        attributes = decode_payload(store, bytes(state))
        if version < from_version:
            previous = attributes["chain"]
            continue
        if version == from_version:
            edit(attributes)
        attributes["digest"] = hash_chain.digest(topic, hash_chain.payload_of(attributes))
        attributes["chain"] = previous = hash_chain.link(previous, version, attributes["digest"])
        sql(url, "UPDATE chronicle_events SET state = %s WHERE originator_id = %s AND originator_version = %s",
            (transcoder.encode(attributes), raw(url, log_id), version))
    store.close()


def replace_text(value: Any, old: str, new: str) -> Any:
    if isinstance(value, dict):
        for k, v in value.items():
            value[k] = replace_text(v, old, new)
    elif isinstance(value, list):
        return [replace_text(v, old, new) for v in value]
    elif isinstance(value, str):
        return value.replace(old, new)
    return value


def truncate(url: str, name: str, keep: int) -> None:
    """Drops a session's events after ``keep`` and makes its catalog row and claims agree."""
    log = raw(url, session_id_of(name))
    sql(url, "DELETE FROM chronicle_events WHERE originator_id = %s AND originator_version > %s", (log, keep))
    sql(url, "DELETE FROM chronicle_event_ids WHERE log_id = %s AND version > %s", (log, keep))
    sql(url, "DELETE FROM chronicle_snapshots WHERE originator_id = %s AND originator_version > %s", (log, keep))
    sql(url, "UPDATE chronicle_sessions SET version = %s WHERE log_id = %s", (keep, log))


def delete_log(url: str, log_id: UUID) -> None:
    """A log gone without a trace: its events, snapshots, claims and catalog row."""
    log = raw(url, log_id)
    for table, column in (("chronicle_events", "originator_id"), ("chronicle_snapshots", "originator_id"),
                          ("chronicle_event_ids", "log_id"), ("chronicle_sessions", "log_id")):
        sql(url, f"DELETE FROM {table} WHERE {column} = %s", (log,))


def delete_checkpoints(url: str, condition: str = "") -> None:
    sql(url, f"DELETE FROM chronicle_events WHERE originator_id = %s {condition}", (raw(url, CHECKPOINT_LOG_ID),))


# -- fixtures --------------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request, tmp_path) -> str:
    return f"sqlite:///{tmp_path}/chronicle.db" if request.param == "sqlite" else request.getfixturevalue("postgres_url")


def demo(url: str, *names: str) -> None:
    store = open_store(url)
    for name in names:
        asyncio.run(run_demo(store, session_id=name))
    store.close()


def unsealed_lines(stdout: str) -> dict[str, str]:
    """UNSEALED lines by the session they name ('purge' for the purge log, 'checkpoints' for the checkpoint log)."""
    found = {}
    for line in stdout.splitlines():
        if line.startswith("UNSEALED"):
            words = line.split()
            name = words[2] if words[1] == "session" else "purge" if "purge audit log" in line else (
                "checkpoints" if "checkpoint log" in line else words[2])  # artifacts, memory
            found.setdefault(name, line)
    return found


# -- the whole story through the command line ------------------------------------------------


def test_verify_key_catches_rewrite_truncation_deletion_and_a_deleted_purge_log(db_url, tmp_path):
    demo(db_url, "rewritten", "truncated", "deleted", "purged", "intact")
    cli("purge", "--app", "demo", "--session", "purged", "--reason", "ticket 7", "--yes", store=db_url)
    key, wrong = str(tmp_path / "seal.key"), str(tmp_path / "other.key")
    write_new_key(key, HMAC_SHA256)
    write_new_key(wrong, ED25519)
    assert "sealed checkpoint #1" in cli("seal", "--key", key, store=db_url).stdout
    assert "nothing appended since checkpoint #1" in cli("seal", "--key", key, store=db_url).stdout
    clean = cli("verify", "--key", key, store=db_url)
    assert "every log holds what was sealed" in clean.stdout and "UNSEALED" not in clean.stdout

    # Events after a seal are the next checkpoint's: appending is not tampering.
    demo(db_url, "later")
    assert "sealed checkpoint #2" in cli("seal", "--key", key, store=db_url).stdout
    exported = str(tmp_path / "checkpoints.jsonl")
    cli("seal", "--export", exported, store=db_url)
    assert [json.loads(line)["sequence"] for line in open(exported)] == [1, 2]

    rewrite_chain(db_url, session_id_of("rewritten"), 5,
                  lambda attributes: replace_text(attributes, "two tonight", "ten tonight"))
    truncate(db_url, "truncated", 7)
    delete_log(db_url, session_id_of("deleted"))
    delete_log(db_url, PURGE_LOG_ID)
    # An artifact log and a memory log cut short, where nothing else names what went.
    for log_id in (ArtifactScope("demo", "ann", "intact").log_id, memory_log_id("demo", "ann")):
        sql(db_url, "DELETE FROM chronicle_events WHERE originator_id = %s AND originator_version > 1",
            (raw(db_url, log_id),))

    done = cli("verify", "--key", key, store=db_url, expect=4)
    lines = unsealed_lines(done.stdout)
    assert set(lines) == {"rewritten", "truncated", "deleted", "purge", "artifacts", "memory"}, done.stdout
    assert "the log was rewritten" in lines["rewritten"] and "app demo, user ann" in lines["rewritten"]
    assert "ends at version 7" in lines["truncated"] and "truncated after the seal" in lines["truncated"]
    assert "the log is gone" in lines["deleted"] and "deleted after the seal" in lines["deleted"]
    assert "the log is gone" in lines["purge"]
    assert "the artifacts of session intact" in lines["artifacts"] and "truncated after the seal" in lines["artifacts"]
    assert "the memory of user ann" in lines["memory"] and "ends at version 1" in lines["memory"]
    assert "6 findings" in done.stdout

    report = json.loads(cli("verify", "--key", key, "--json", store=db_url, expect=4).stdout)
    assert report["ok"] is False and report["seals"]["checkpoints"] == 2
    rewritten = next(f for f in report["seals"]["findings"] if "rewritten" in f["where"])
    assert rewritten["log_id"] == str(session_id_of("rewritten")) and rewritten["checkpoint"] == 1

    # A wrong key vouches for no checkpoint, so it reports them refused and judges no log by them.
    refused = cli("verify", "--key", wrong, store=db_url, expect=4)
    assert set(unsealed_lines(refused.stdout)) == {"checkpoints"}
    assert refused.stdout.count("is refused: signed by another key") == 2
    # (plain verify's own findings, such as the memory index drifting from the cut log, still show)
    unsealed = "\n".join(line for line in refused.stdout.splitlines() if line.startswith("UNSEALED"))
    assert "session rewritten" not in unsealed and "purge audit log" not in unsealed
    assert "the memory of user ann" not in unsealed

    # The proof of an event in the rewritten log no longer leads to the sealed root; an intact one does.
    store = open_store(db_url)
    events = asyncio.run(LogSessionService(store).get_session(app_name="demo", user_id="ann", session_id="intact")).events
    rewritten_ids = [r[0] for r in sql(db_url, "SELECT event_id FROM chronicle_event_ids WHERE log_id = %s"
                                       " AND version = 6", (raw(db_url, session_id_of("rewritten")),))]
    store.close()
    assert "holds" in cli("prove", "intact", events[2].id, "--key", key, store=db_url).stdout
    broken_proof = cli("prove", "rewritten", rewritten_ids[0], "--key", key, store=db_url, expect=4)
    assert "DOES NOT HOLD" in broken_proof.stdout and "changed after the seal" in broken_proof.stdout


def test_deleted_checkpoints_are_caught_and_an_exported_copy_shows_the_newest(db_url, tmp_path):
    key = str(tmp_path / "seal.key")
    sealer, _ = write_new_key(key, ED25519)
    exported = str(tmp_path / "checkpoints.jsonl")
    for name in ("one", "two", "three"):
        demo(db_url, name)
        store = open_store(db_url)
        seal(store, sealer)
        store.close()
    cli("seal", "--export", exported, store=db_url)
    assert "UNSEALED" not in cli("verify", "--key", key, "--checkpoints", exported, store=db_url).stdout

    delete_checkpoints(db_url, "AND originator_version = 4")  # genesis, #1, #2, #3: #3 is the newest
    # Without a copy, the newest checkpoint's removal cannot show; with one, it does.
    assert "UNSEALED" not in cli("verify", "--key", key, store=db_url).stdout
    done = cli("verify", "--key", key, "--checkpoints", exported, store=db_url, expect=4)
    assert "checkpoint #3 of the exported copy is missing from the store (deleted)" in done.stdout

    delete_checkpoints(db_url, "AND originator_version = 2")  # #1: the chain of checkpoints breaks
    done = cli("verify", "--key", key, store=db_url, expect=4)
    assert "checkpoints #1–#1 are missing (deleted)" in done.stdout
    assert "version 2 is missing" in done.stdout

    delete_checkpoints(db_url)
    done = cli("verify", "--key", key, store=db_url, expect=4)
    assert "the store holds no checkpoint" in done.stdout
    # The exported copy still vouches for the logs: rewrite one and it shows.
    rewrite_chain(db_url, session_id_of("one"), 1, lambda attributes: replace_text(attributes, "ann", "bob"))
    done = cli("verify", "--key", key, "--checkpoints", exported, store=db_url, expect=4)
    lines = unsealed_lines(done.stdout)
    assert "one" in lines and "the log was rewritten" in lines["one"]
    assert done.stdout.count("of the exported copy is missing from the store") == 3


def test_a_forged_checkpoint_is_refused_and_sealing_will_not_continue_after_it(db_url, tmp_path):
    key_file = str(tmp_path / "seal.key")
    write_new_key(key_file, ED25519)
    demo(db_url, "s")
    cli("seal", "--key", key_file, store=db_url)
    # The owner deletes a session, then seals what is left with a key of their own.
    delete_log(db_url, session_id_of("s"))
    store = open_store(db_url)
    forger = new_key(ED25519)
    last = store.recorder.select_events(CHECKPOINT_LOG_ID, desc=True, limit=1)[0]
    previous = stored_checkpoints(store)[-1]
    forged = Checkpoint.make(sequence=2, previous=previous.digest, sealed_time="2030-01-01T00:00:00+00:00",
                             position=previous.position, heads=[], key=forger)
    tail = (last.originator_version, decode_payload(store, last.state)["chain"])
    store.recorder.insert_events([store.application.mapper.to_stored_event(e)
                                  for e in next_events(tail, forged.to_json(), 0.0)])
    store.close()
    done = cli("verify", "--key", key_file, store=db_url, expect=4)
    assert "checkpoint #2 is refused: signed by another key" in done.stdout
    assert "session s " in done.stdout and "the log is gone" in done.stdout  # #1 still vouches for it
    refused = cli("seal", "--key", key_file, store=db_url, expect=1)
    assert "Not sealing" in refused.stderr and "not vouched for by this key" in refused.stderr


# -- the Python API on every store -----------------------------------------------------------


def test_sealing_untouched_stores_and_only_what_changed(store_url):
    store = open_store(store_url)
    try:
        asyncio.run(run_demo(store, session_id="a"))
        key = new_key(HMAC_SHA256)
        [first] = seal(store, key)
        assert first.sequence == 1
        assert {h.kind for h in first.heads} == {"session", "artifacts", "memory"}
        assert seal(store, key) == []  # nothing appended: the first still covers every log
        asyncio.run(run_demo(store, session_id="b"))
        [second] = seal(store, key)
        assert second.sequence == 2 and second.previous == first.digest
        assert {h.session_id for h in second.heads if h.kind == "session"} == {"b"}
        report = check_seals(store, key)
        assert report.ok and report.checkpoints == 2 and report.logs == 5
        assert [c.sequence for c in stored_checkpoints(store)] == [1, 2]

        wrong = check_seals(store, new_key(HMAC_SHA256))
        assert not wrong.ok and wrong.checkpoints == 0 and wrong.logs == 0
        assert all("signed by another key" in f.reason for f in wrong.findings)

        # Every event of a sealed session proves, through its log's root to the signed checkpoint.
        session = asyncio.run(LogSessionService(store).get_session(app_name="demo", user_id="ann", session_id="a"))
        for event in session.events:
            proof = prove(store, "demo", "ann", "a", event.id, key)
            assert proof.holds and proof.signature_checked and proof.checkpoint == 1
            leaf = merkle.leaf_hash(proof.leaf.encode())
            assert merkle.verify_inclusion(proof.version - 1, proof.tree_size, leaf,
                                           [bytes.fromhex(p) for p in proof.path], bytes.fromhex(proof.log_root))
    finally:
        store.close()


def test_a_large_seal_is_split_and_only_its_last_checkpoint_moves_the_position_on(store_url, monkeypatch):
    import runtime.operations.seal as sealing

    monkeypatch.setattr(sealing, "MAX_HEADS", 2)
    store = open_store(store_url)
    try:
        asyncio.run(run_demo(store, session_id="a"))  # a session, its artifacts, the user's memory: 3 logs
        key, logged = new_key(ED25519), store.max_position()
        written = seal(store, key)
        assert [len(c.heads) for c in written] == [2, 1]
        assert written[0].position == 0 and written[1].position == logged
        assert written[1].previous == written[0].digest
        assert check_seals(store, key).ok and seal(store, key) == []
        session = asyncio.run(LogSessionService(store).get_session(app_name="demo", user_id="ann", session_id="a"))
        assert prove(store, "demo", "ann", "a", session.events[-1].id, key).holds
    finally:
        store.close()


def test_a_purge_after_a_seal_is_noted_not_reported(db_url):
    demo(db_url, "keep", "gone")
    store = open_store(db_url)
    try:
        key = new_key(ED25519)
        seal(store, key)
        from runtime.operations.purge import purge

        purge(store, "demo", session_id="gone", by="test", reason="retention")
        report = check_seals(store, key)
        assert report.ok, report.findings
        assert any("session gone" in note and "purged" in note for note in report.purged)
        assert [c.sequence for c in seal(store, key)] == [2]  # the purge log changed
        assert check_seals(store, key).ok
    finally:
        store.close()


def test_concurrent_sealers_write_one_chain_of_checkpoints(shared_store_url):
    demo(shared_store_url, "a")
    key = new_key(HMAC_SHA256)
    stores = [open_store(shared_store_url) for _ in range(2)]
    try:
        async def both() -> list[Any]:
            return await asyncio.gather(*(s.call(seal, s, key) for s in stores))

        results = asyncio.run(both())
        written = sorted(c.sequence for r in results for c in r)
        assert written and [c.sequence for c in stored_checkpoints(stores[0])] == written == list(range(1, len(written) + 1))
        assert check_seals(stores[0], key).ok
    finally:
        for s in stores:
            s.close()


# -- keys ------------------------------------------------------------------------------------


def test_keys_sign_verify_and_refuse():
    for algorithm in (HMAC_SHA256, ED25519):
        key = new_key(algorithm)
        again = parse_key(key.text())
        assert again.key_id == key.key_id and again.verifies(b"m", key.sign(b"m"))
        assert not again.verifies(b"n", key.sign(b"m")) and not new_key(algorithm).verifies(b"m", key.sign(b"m"))
        assert "secret" not in repr(key) or key.secret.hex() not in repr(key)
    key = new_key(ED25519)
    public = parse_key(key.public_text())
    assert not public.can_sign and public.verifies(b"m", key.sign(b"m")) and public.key_id == key.key_id
    with pytest.raises(SealKeyError, match="cannot seal"):
        public.sign(b"m")
    for bad in ("", "chronicle-seal hmac-sha256", "chronicle-seal rsa AAAA", "chronicle-seal hmac-sha256 AAAA"):
        with pytest.raises(SealKeyError):
            parse_key(bad)
    store = open_store("memory://")
    with pytest.raises(SealKeyError):
        seal(store, public)
    assert stored_checkpoints(store) == []
    store.close()


def test_new_key_files_are_private_and_never_overwritten(tmp_path, sqlite_url):
    path = str(tmp_path / "k")
    done = cli("seal", "--new-key", path)
    assert "ed25519" in done.stdout
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and os.path.exists(path + ".pub")
    again = cli("seal", "--new-key", path, expect=1)
    assert "never overwritten" in again.stderr
    assert cli("seal", store=sqlite_url, expect=2).stderr.strip().startswith("chronicle: Give --key")
    demo(sqlite_url, "x")
    env_key = new_key(HMAC_SHA256).text()
    assert "sealed checkpoint #1" in cli("seal", "--key-env", "SEAL", store=sqlite_url, env={"SEAL": env_key}).stdout
    # The public half verifies; it cannot seal, and a checkpoint by the HMAC key is not its.
    assert "cannot seal" in cli("seal", "--key", path + ".pub", store=sqlite_url, expect=1).stderr
    assert "every log holds" in cli("verify", "--key-env", "SEAL", store=sqlite_url, env={"SEAL": env_key}).stdout
    assert "Cannot read the seal key" in cli("verify", "--key", str(tmp_path / "nope"), store=sqlite_url,
                                             expect=1).stderr
    # The server refuses a key that cannot seal before it starts.
    refused = cli("serve", str(tmp_path), "--seal-key", path + ".pub", store=sqlite_url, expect=1)
    assert "public key" in refused.stderr and "Traceback" not in refused.stderr


# -- sealing in the background -----------------------------------------------------------------


def test_the_server_seals_periodically_and_when_it_stops(tmp_path, sqlite_url):
    from runtime.server.app import create_app
    from runtime.server.config import ServerConfig

    key_file = str(tmp_path / "seal.key")
    write_new_key(key_file, ED25519)
    (tmp_path / "agents").mkdir()
    config = ServerConfig(agents_dir=str(tmp_path / "agents"), store_url=sqlite_url, seal_key_file=key_file,
                          seal_every=0.05)
    app = create_app(config)
    key = parse_key(open(key_file).read())

    async def serve_a_while() -> None:
        async with app.router.lifespan_context(app):
            services = app.state.services
            await run_demo(services.store, session_id="served")
            for _ in range(100):
                await asyncio.sleep(0.05)
                if await services.store.call(stored_checkpoints, services.store):
                    break
            await run_demo(services.store, session_id="last")  # sealed when the server stops

    asyncio.run(serve_a_while())
    store = open_store(sqlite_url)
    try:
        checkpoints = stored_checkpoints(store)
        sealed = {h.session_id for c in checkpoints for h in c.heads if h.kind == "session"}
        assert sealed == {"served", "last"} and check_seals(store, key).ok
    finally:
        store.close()


def test_a_seal_worker_seals_every_few_seconds(tmp_path, sqlite_url):
    import subprocess
    import sys
    import time

    from tests.cli_helpers import ROOT

    key_file = str(tmp_path / "seal.key")
    cli("seal", "--new-key", key_file, "--algorithm", "hmac-sha256")
    demo(sqlite_url, "a")
    worker = subprocess.Popen([sys.executable, "-m", "tools.cli", "--store", sqlite_url, "seal", "--key", key_file,
                               "--every", "0.2"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        store = open_store(sqlite_url)
        try:
            deadline = time.monotonic() + 60
            while not stored_checkpoints(store) and time.monotonic() < deadline:
                time.sleep(0.1)
            asyncio.run(run_demo(store, session_id="b"))
            while len(stored_checkpoints(store)) < 2 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert len(stored_checkpoints(store)) == 2
            assert check_seals(store, parse_key(open(key_file).read())).ok
        finally:
            store.close()
    finally:
        worker.terminate()
        worker.wait(timeout=30)


def test_bench_seal_is_wired():
    done = cli("bench", "seal", "--stores", "memory", "--quick", "--runs", "1")
    assert "| memory" in done.stdout and "first seal s" in done.stdout
