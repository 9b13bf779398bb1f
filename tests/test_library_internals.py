"""Guards for every place Chronicle reaches into a library's internals.

Each use lives in a store package (runtime/stores/<backend>/), in runtime/stores/application.py
or in the domain's session model; the versions are pinned in pyproject.toml. When a library
changes one of these, the test here fails by name, instead of appends silently losing their
side rows or snapshots.
"""

from __future__ import annotations

import inspect
import json
from collections import defaultdict, deque

import psycopg_pool
import pytest
from eventsourcing.application import Application
from eventsourcing.persistence import JSONTranscoder
from eventsourcing.popo import POPOApplicationRecorder, POPOTrackingRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteConnection, SQLiteConnectionPool

from domain.chained import ENCODED_PAYLOAD
from domain.events import Event, EventActions
from domain.session_log import SessionLog, session_log_id
from domain.session import Session
from runtime.stores.application import recorded_event as _recorded_event
from runtime.sessions import session_service_from_url
from runtime.stores import open_store
from runtime.stores.application import LogApplication, VersionedMapper, make_transcoder


def _parameters(fn: object) -> list[str]:
    return list(inspect.signature(fn).parameters)  # type: ignore[arg-type]


# -- eventsourcing -------------------------------------------------------------------------


def test_the_popo_recorder_still_writes_through_insert_events_hook():
    """runtime/stores/memory/recorder.py overrides ``_insert_events`` to write the side rows."""
    assert "self._insert_events(stored_events, **kwargs)" in inspect.getsource(POPOApplicationRecorder.insert_events)
    assert _parameters(POPOApplicationRecorder._insert_events) == ["self", "stored_events", "kwargs"]
    recorder = POPOApplicationRecorder()
    for name, kind in (("_database_lock", object), ("_stored_events_index", dict), ("_stored_events", list)):
        assert isinstance(getattr(recorder, name), kind), name  # read by MemoryLogRecorder


def test_the_popo_tracking_recorder_keeps_the_positions_the_memory_read_models_read():
    """runtime/stores/memory/read_models.py reads and writes positions under the recorder's lock."""
    recorder = POPOTrackingRecorder()
    assert isinstance(recorder._max_tracking_ids, defaultdict) and recorder._max_tracking_ids["none"] is None
    assert hasattr(recorder._database_lock, "__enter__")
    assert _parameters(POPOTrackingRecorder._insert_tracking) == ["self", "tracking"]


def test_the_sqlite_recorder_still_inserts_through_the_hook_the_store_overrides():
    """runtime/stores/sqlite/recorder.py overrides ``_insert_events(c, stored_events, **kwargs)``
    and builds the pool's connections itself."""
    assert _parameters(SQLiteApplicationRecorder._insert_events) == ["self", "c", "stored_events", "_"]
    assert "self._insert_events(c, stored_events, **kwargs)" in inspect.getsource(
        SQLiteApplicationRecorder.insert_events
    )
    assert _parameters(SQLiteConnectionPool._create_connection) == ["self"]
    assert _parameters(SQLiteConnection.__init__) == ["self", "sqlite_conn", "max_age"]
    assert "self._sqlite_conn = sqlite_conn" in inspect.getsource(SQLiteConnection.__init__)


def test_save_still_calls_the_snapshot_hook_the_application_overrides():
    """runtime/stores/application.py overrides ``_take_snapshots`` to snapshot the aggregate in hand."""
    assert "self._take_snapshots(processing_event)" in inspect.getsource(Application.save)
    assert _parameters(Application._take_snapshots) == ["self", "processing_event"]
    assert LogApplication._take_snapshots is not Application._take_snapshots


async def test_appends_write_their_side_rows_on_every_store(store_url):
    """If the library stopped calling the overridden hooks, the claims would be missing."""
    service = session_service_from_url(store_url)
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    event = Event(author="user", actions=EventActions(state_delta={"app:k": 1}))
    await service.append_event(session, event)
    log_id = session_log_id(session.app_name, session.user_id, session.id)
    assert service.store.recorder.find_claim(log_id, event.id) == 2
    assert service.store.recorder.select_scoped("app", "u") == {"app:k": 1}
    await service.close()


def test_the_fast_payload_encoding_writes_the_transcoders_json():
    """``VersionedMapper`` writes a session log's payloads with pydantic-core, and the projection
    source reads a Recorded event's JSON by its byte layout: both must match the transcoder's."""
    log = SessionLog.start("app", "u", "s", {"a": 1}, 1.0)
    log.record(Event(author="user", actions=EventActions(state_delta={"k": "é"})).to_json_dict())
    mapper = VersionedMapper(transcoder=make_transcoder())
    transcoder = make_transcoder()
    assert isinstance(transcoder, JSONTranscoder)
    for domain_event in log.collect_events():
        stored = mapper.to_stored_event(domain_event)
        fields = dict(vars(domain_event))
        fields.pop("originator_id"), fields.pop("originator_version")
        fields.pop(ENCODED_PAYLOAD, None)  # the digest's bytes, which the mapper writes: not stored as such
        fields["class_version"] = 1
        assert transcoder.decode(stored.state) == transcoder.decode(transcoder.encode(fields))
        if isinstance(domain_event, SessionLog.Recorded):
            assert _recorded_event(stored.state) == json.loads(stored.state)["event"]


# -- psycopg-pool --------------------------------------------------------------------------


def test_the_pool_still_takes_connections_from_the_front_of_its_deque():
    """runtime/stores/postgres/recorder.py's pool rotates ``_pool`` in ``_get_ready_connection``."""
    assert _parameters(psycopg_pool.ConnectionPool._get_ready_connection) == ["self", "timeout"]
    source = inspect.getsource(psycopg_pool.ConnectionPool)
    assert "self._pool.popleft()" in source and "self._pool.append(conn)" in source
    assert "conn := self._get_ready_connection(timeout)" in source  # how a checkout takes one


@pytest.mark.postgres
def test_the_postgres_store_swaps_in_its_pool(postgres_url):
    store = open_store(postgres_url)
    try:
        pool = store.datastore.pool  # type: ignore[attr-defined]
        assert type(pool).__name__ == "_WarmestFirstPool" and isinstance(pool._pool, deque)
    finally:
        store.close()


# -- pydantic ------------------------------------------------------------------------------


def test_a_session_built_without_validation_is_the_validated_one():
    """``Session.from_store`` and ``advance`` write pydantic's ``__dict__`` and private slots."""
    event = Event(author="user")
    fast = Session.from_store(
        id="s", app_name="app", user_id="u", state={"k": 1}, events=[event], last_update_time=2.0, version=3
    )
    slow = Session(id="s", app_name="app", user_id="u", state={"k": 1}, events=[event], last_update_time=2.0)
    assert fast.model_dump() == slow.model_dump() and fast.model_fields_set == slow.model_fields_set
    assert fast.version == 3 and slow.version is None
    slow.advance(3, 2.0)
    assert fast == slow  # fields, extras and private slots alike
    fast.advance(4, 5.0)
    assert fast.version == 4 and fast.last_update_time == 5.0 and fast.model_dump()["last_update_time"] == 5.0
    assert fast.model_copy(deep=True) == fast


def test_a_domain_event_built_from_a_decoded_payload_is_the_one_the_mapper_builds():
    """``verify`` decodes each payload once and builds the event the way eventsourcing's mapper
    does (``runtime.stores.application.domain_event``): the two must agree, and fold alike."""
    import asyncio

    from eventsourcing.persistence import Mapper

    from runtime.sessions import LogSessionService
    from runtime.stores.application import domain_event

    async def write(sessions: LogSessionService) -> None:
        session = await sessions.create_session(app_name="a", user_id="u", session_id="s", state={"k": 1})
        await sessions.append_event(session, Event(author="x", actions=EventActions(state_delta={"k": 2})))

    store = open_store("memory://")
    asyncio.run(write(LogSessionService(store)))
    mapper, folded = store.application.mapper, None
    for stored in store.recorder.select_events(session_log_id("a", "u", "s")):
        by_mapper = mapper.to_domain_event(stored)
        ours = domain_event(mapper, stored, mapper.transcoder.decode(stored.state))
        assert type(ours) is type(by_mapper) and vars(ours) == vars(by_mapper)
        folded = ours.mutate(folded)
    assert folded.state == {"k": 2} and folded.version == 2
    assert 'object.__setattr__(domain_event, "__dict__", event_state)' in inspect.getsource(Mapper.to_domain_event)


def test_the_log_cache_keeps_the_libraries_lru_links_and_order():
    """runtime/stores/application.py's RecentFirstCache reads the library's LRU links without its
    lock when the log asked for is already the most recent: the links must still be
    [prev, next, key, result] in ``cache``, the most recent at ``root[PREV]``; and what is evicted
    is still the least recently used log."""
    from eventsourcing.application import LRUCache

    from runtime.stores.application import RecentFirstCache

    assert (LRUCache.PREV, LRUCache.NEXT, LRUCache.KEY, LRUCache.RESULT) == (0, 1, 2, 3)
    cache = RecentFirstCache(maxsize=2)
    cache.put("a", "log a")
    cache.put("b", "log b")
    assert cache.root[cache.PREV] is cache.cache["b"]
    assert cache.get("b") == "log b"  # the most recent: read in place
    assert cache.get("a") == "log a"  # not the most recent: moved to the front
    assert cache.root[cache.PREV] is cache.cache["a"]
    cache.put("c", "log c")  # evicts the least recently used: b
    assert set(cache.cache) == {"a", "c"}
    assert cache.get("c", evict=True) == "log c" and set(cache.cache) == {"a"}
    with pytest.raises(KeyError):
        cache.get("c")
    store = open_store("memory://")
    assert type(store.application.repository.cache) is RecentFirstCache


def test_a_stored_event_built_at_once_is_the_librarys_stored_event():
    """runtime/stores/application.py's stored_event sets a StoredEvent's fields without its frozen
    dataclass's __init__: the object must be the one the constructor makes."""
    from eventsourcing.persistence import StoredEvent

    from runtime.stores.application import stored_event

    made = stored_event("id", 3, "topic", b"{}")
    assert made == StoredEvent(originator_id="id", originator_version=3, topic="topic", state=b"{}")
    assert vars(made) == vars(StoredEvent(originator_id="id", originator_version=3, topic="topic", state=b"{}"))
    with pytest.raises(AttributeError):
        made.state = b"[]"  # still frozen
