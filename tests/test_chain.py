"""Tamper evidence: the hash chain catches rows edited, deleted or reordered with SQL."""

from __future__ import annotations

import dataclasses
import json
import sqlite3

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import to_json

from domain import Event, EventActions, session_log_id
from domain.chain import _NOT_PAYLOAD, digest, digest_v1, link, payload_of, verify
from runtime.sessions import session_service_from_url
from runtime.sessions.verify import verify_log


async def make_session(url: str):
    service = session_service_from_url(url)
    s = await service.create_session(app_name="app", user_id="u", session_id="s", state={"a": 0})
    for i in range(5):
        await service.append_event(s, Event(author="user", invocation_id=f"e-{i}", actions=EventActions(state_delta={"a": i})))
    await service.rewind_session(app_name="app", user_id="u", session_id="s", rewind_before_invocation_id="e-3")
    return service, session_log_id("app", "u", "s")


async def test_untouched_logs_verify(store_url):
    service, log_id = await make_session(store_url)
    assert verify_log(service.store, log_id) is None
    await service.close()


def _sqlite_path(url: str) -> str:
    return url[len("sqlite:///"):]


@pytest.mark.parametrize("tamper", ["edit", "delete", "reorder"])
async def test_sqlite_tampering_is_caught(sqlite_url, tamper):
    service, log_id = await make_session(sqlite_url)
    await service.close()
    db = sqlite3.connect(_sqlite_path(sqlite_url))
    where = f"originator_id = '{log_id.hex}'"
    if tamper == "edit":
        db.execute(
            f"UPDATE chronicle_events SET state = CAST(REPLACE(CAST(state AS TEXT), '\"a\":2', '\"a\":7') AS BLOB)"
            f" WHERE {where} AND originator_version = 4"
        )
    elif tamper == "delete":
        db.execute(f"DELETE FROM chronicle_events WHERE {where} AND originator_version = 3")
    else:
        rows = dict(db.execute(f"SELECT originator_version, state FROM chronicle_events WHERE {where}").fetchall())
        db.execute(f"UPDATE chronicle_events SET state = ? WHERE {where} AND originator_version = 3", (rows[4],))
        db.execute(f"UPDATE chronicle_events SET state = ? WHERE {where} AND originator_version = 4", (rows[3],))
    db.commit()
    db.close()
    fresh = session_service_from_url(sqlite_url)
    broken = verify_log(fresh.store, log_id)
    assert broken is not None and broken.version in (3, 4)
    await fresh.close()


async def test_postgres_edit_is_caught(postgres_url):
    service, log_id = await make_session(postgres_url)
    await service.close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE chronicle_events SET state = convert_to(replace(convert_from(state, 'UTF8'), '\"a\":1', '\"a\":9'), 'UTF8')"
            " WHERE originator_id = %s AND originator_version = 3",
            (log_id,),
        )
    fresh = session_service_from_url(postgres_url)
    broken = verify_log(fresh.store, log_id)
    assert broken is not None and broken.version == 3 and "edited" in broken.reason
    await fresh.close()


def test_purged_payloads_keep_the_chain_verifiable():
    payloads = [{"n": i} for i in range(3)]
    entries, previous = [], ""
    for version, payload in enumerate(payloads, start=1):
        d = digest("t", payload)
        previous = link(previous, version, d)
        entries.append((version, "t", {**payload, "digest": d, "chain": previous}))
    assert verify(entries) is None
    purged = dict(entries[1][2])
    purged.pop("n")
    purged["purged"] = True
    assert verify([entries[0], (2, "t", purged), entries[2]]) is None
    assert payload_of({"n": 1, "digest": "x", "timestamp": 0}) == {"n": 1}


def test_a_broken_link_says_what_was_found_and_what_was_expected():
    entries = _chain([({"n": 1}, digest), ({"n": 2}, digest), ({"n": 3}, digest)])
    edited = (2, "t", {**entries[1][2], "n": 20})
    broken = verify([entries[0], edited, entries[2]])
    assert broken.version == 2 and "edited" in broken.reason
    assert broken.expected == entries[1][2]["digest"] and broken.found == digest("t", {"n": 20})
    relinked = (3, "t", {**entries[2][2], "chain": "0" * 64})
    broken = verify([entries[0], entries[1], relinked])
    assert broken.version == 3 and broken.found == "0" * 64
    assert broken.expected == entries[2][2]["chain"]


# -- digest forms ------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)
payloads = st.dictionaries(st.text(min_size=1, max_size=6).filter(lambda k: k not in _NOT_PAYLOAD), json_values,
                           min_size=1, max_size=4)


def _chain(payloads_and_digesters):
    entries, previous = [], ""
    for version, (payload, make_digest) in enumerate(payloads_and_digesters, start=1):
        d = make_digest("t", payload)
        previous = link(previous, version, d)
        entries.append((version, "t", {**payload, "digest": d, "chain": previous}))
    return entries


@settings(max_examples=200, deadline=None)
@given(payloads)
def test_a_digest_verifies_after_the_payload_is_stored_and_read_back(payload):
    """What verify sees is the payload decoded from stored JSON (from the transcoder's
    json.dumps or from pydantic-core): the digest written before storing must match it,
    whatever order the top-level attributes come back in."""
    [(version, topic, attributes)] = _chain([(payload, digest)])
    for stored in (to_json(attributes), json.dumps(attributes).encode()):
        read = json.loads(stored)
        assert verify([(version, topic, read)]) is None
        assert verify([(version, topic, dict(reversed(list(read.items()))))]) is None


@settings(max_examples=200, deadline=None)
@given(payloads, st.data())
def test_a_changed_value_breaks_the_digest(payload, data):
    key = data.draw(st.sampled_from(sorted(payload)))
    changed = data.draw(json_values.filter(lambda v: to_json(v) != to_json(payload[key])))
    [(version, topic, attributes)] = _chain([(payload, digest)])
    assert verify([(version, topic, {**attributes, key: changed})]) is not None


def test_logs_written_with_v1_digests_still_verify_and_catch_edits():
    entries = _chain([({"n": 1, "s": {"b": 1, "a": [1.5, "é"]}}, digest_v1), ({"n": 2}, digest_v1), ({"n": 3}, digest)])
    assert len(entries[0][2]["digest"]) == 64 and entries[2][2]["digest"].startswith("2:")
    assert verify(entries) is None  # a log upgraded midway: old events v1, new ones v2
    edited = (1, "t", {**entries[0][2], "n": 7})
    broken = verify([edited, *entries[1:]])
    assert broken is not None and broken.version == 1 and "edited" in broken.reason


def test_every_chained_log_stores_its_links_before_its_payload():
    """Session logs and the purge log share one chained base; their stored JSON keeps one layout
    (the projection source reads a Recorded event's JSON by it) and their chains verify."""
    from domain.session_log import SessionLog
    from domain.purge_log import PurgeLog
    from runtime.stores.application import VersionedMapper, make_transcoder

    mapper = VersionedMapper(transcoder=make_transcoder())
    log = SessionLog.start("a", "u", "s", {}, 1.0)
    log.record({"id": "e", "timestamp": 1.0})
    purges = PurgeLog.start(1.0)
    purges.record(by="ops", reason="asked", scope={}, sessions=[], counts={}, purged_time=2.0)
    stored = [[mapper.to_stored_event(e) for e in aggregate.collect_events()] for aggregate in (log, purges)]
    assert [list(json.loads(s.state)) for s in stored[0] + stored[1]] == [
        ["timestamp", "originator_topic", "digest", "chain", "app_name", "user_id", "session_id", "state",
         "created_time", "class_version"],
        ["timestamp", "digest", "chain", "event", "class_version"],
        ["timestamp", "originator_topic", "digest", "chain", "created_time", "class_version"],
        ["timestamp", "digest", "chain", "by", "reason", "scope", "sessions", "counts", "purged_time", "class_version"],
    ]
    for rows, aggregate in zip(stored, (log, purges)):
        assert verify([(s.originator_version, s.topic, json.loads(s.state)) for s in rows]) is None
        assert aggregate.chain_head == json.loads(rows[-1].state)["chain"]


# -- artifact and memory logs: chained by the same base ------------------------------------


async def _artifact_and_memory_logs(url: str):
    """A store with an artifact log (two saves and a delete) and a memory log; their ids."""
    from google.genai import types

    from domain.artifact_names import ArtifactScope
    from domain.memory_log import memory_log_id
    from runtime.artifacts import LogArtifactService
    from runtime.memory import LogMemoryService

    service, _ = await make_session(url)
    artifacts, memory = LogArtifactService(service.store), LogMemoryService(service.store)
    for text in ("one", "two"):
        await artifacts.save_artifact(app_name="app", user_id="u", session_id="s", filename="notes.txt",
                                      artifact=types.Part.from_text(text=text))
    await artifacts.delete_artifact(app_name="app", user_id="u", session_id="s", filename="notes.txt")
    await memory.add_session_to_memory(await service.get_session(app_name="app", user_id="u", session_id="s"))
    return service, ArtifactScope("app", "u", "s").log_id, memory_log_id("app", "u")


async def test_artifact_and_memory_logs_are_chained(store_url):
    service, artifact_log, memory_log = await _artifact_and_memory_logs(store_url)
    for log_id in (artifact_log, memory_log):
        rows = service.store.recorder.select_events(log_id)
        assert len(rows) >= 2
        assert all(json.loads(row.state)["chain"] for row in rows)
        assert verify_log(service.store, log_id) is None
    await service.close()


async def test_an_artifact_version_pointed_at_other_bytes_is_caught(sqlite_url):
    service, artifact_log, _ = await _artifact_and_memory_logs(sqlite_url)
    await service.close()
    db = sqlite3.connect(_sqlite_path(sqlite_url))
    db.execute(
        "UPDATE chronicle_events SET state = CAST(REPLACE(CAST(state AS TEXT), '\"sha256\":\"', '\"sha256\":\"0') AS BLOB)"
        " WHERE originator_id = ? AND originator_version = 2", (artifact_log.hex,),
    )
    db.commit()
    db.close()
    fresh = session_service_from_url(sqlite_url)
    broken = verify_log(fresh.store, artifact_log)
    assert broken is not None and broken.version == 2 and "edited" in broken.reason
    await fresh.close()


def _unchained(store, events):
    """The stored events as logs were written before they were chained: no digest, no link."""
    from eventsourcing.persistence import StoredEvent

    mapper, stored = store.application.mapper, []
    for event in events:
        row = mapper.to_stored_event(event)
        attributes = mapper.transcoder.decode(row.state)
        del attributes["digest"], attributes["chain"]
        stored.append(StoredEvent(row.originator_id, row.originator_version, row.topic,
                                  mapper.transcoder.encode(attributes)))
    store.recorder.insert_events(stored)


async def test_artifact_and_memory_logs_written_before_chaining_load_grow_and_verify(store_url):
    """Stored data from before the chain stays readable: the old events load as they did, new
    events chain from genesis after them, and verify passes over the unchained prefix only."""
    from google.genai import types

    from domain.artifact_log import ArtifactLog
    from domain.artifact_names import ArtifactScope
    from domain.artifact_versions import VersionRecord
    from domain.memory_log import MemoryLog
    from runtime.artifacts import LogArtifactService
    from runtime.memory import LogMemoryService

    service, session_log = await make_session(store_url)
    store = service.store
    artifacts = LogArtifactService(store)
    await artifacts.save_artifact(app_name="app", user_id="u", session_id="other", filename="a.txt",
                                  artifact=types.Part.from_text(text="old bytes"))
    saved = json.loads(store.recorder.select_events(ArtifactScope("app", "u", "other").log_id)[-1].state)
    scope = ArtifactScope("app", "u", "s")
    old = ArtifactLog.start(scope)
    old.save_version(VersionRecord(**{f.name: saved[f.name] for f in dataclasses.fields(VersionRecord)}))
    _unchained(store, old.collect_events())
    old_memory = MemoryLog.start("app", "u")
    old_memory.add_session("s", session_log)
    _unchained(store, old_memory.collect_events())

    reopened = session_service_from_url(store_url) if not store_url.startswith("memory") else service
    artifacts, memory = LogArtifactService(reopened.store), LogMemoryService(reopened.store)
    assert await artifacts.list_versions(app_name="app", user_id="u", session_id="s", filename="a.txt") == [0]
    loaded = await artifacts.load_artifact(app_name="app", user_id="u", session_id="s", filename="a.txt")
    assert loaded.text == "old bytes"
    assert await artifacts.save_artifact(app_name="app", user_id="u", session_id="s", filename="a.txt",
                                         artifact=types.Part.from_text(text="new")) == 1
    await memory.add_session_to_memory(
        await reopened.get_session(app_name="app", user_id="u", session_id="s")
    )
    other = await reopened.create_session(app_name="app", user_id="u", session_id="t")
    await memory.add_session_to_memory(other)
    for log_id in (scope.log_id, old_memory.id):
        rows = reopened.store.recorder.select_events(log_id)
        assert "chain" not in json.loads(rows[0].state) and "chain" in json.loads(rows[-1].state)
        assert verify_log(reopened.store, log_id) is None
    # A session log never had an unchained prefix: stripped links there are breaks.
    rows = reopened.store.recorder.select_events(session_log)
    entries = [(r.originator_version, r.topic, json.loads(r.state)) for r in rows]
    for _, _, attributes in entries[:2]:
        del attributes["digest"], attributes["chain"]
    assert verify(entries) is not None
    await reopened.close()
    if reopened is not service:
        await service.close()
