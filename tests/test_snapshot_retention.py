"""Snapshots whose size follows the session's state, not its history, and only a few of them kept:
one per ``KEEP_EVERY`` versions, and those since the last of them. A store written before (snapshots
that carry the invocation index, all kept) still loads from them, verifies clean, and stops
carrying the index on; invocations are found by asking the store (rewind, fork, time travel)."""

from __future__ import annotations

import asyncio

from domain.session_log import SessionLog, session_log_id
from runtime.log_reader import LogReader
from runtime.operations.audit import audit
from runtime.sessions.service import LogSessionService
from runtime.stores import open_store
from runtime.stores.application import KEEP_EVERY, SNAPSHOT_INTERVAL
from tools.bench import scale

USER = "u"


def _fresh(store, url):
    """The store as a new process opens it (for memory: the one store, its aggregate cache emptied)."""
    if url.startswith("memory"):
        cache = store.application.repository.cache
        for log_id in list(cache.cache):
            cache.get(log_id, evict=True)
        return store
    store.close()
    return open_store(url)


def _snapshots(store, session_id):
    return LogReader(store).snapshots(session_log_id(scale.APP, USER, session_id))


def test_a_sparse_few_snapshots_are_kept_each_the_size_of_the_state(store_url):
    store = open_store(store_url)
    try:
        length = 2 * KEEP_EVERY + 3 * SNAPSHOT_INTERVAL + 50
        events = [scale._payload(i, "long") for i in range(length)]
        scale.write_session(store, USER, "long", events)
        kept = _snapshots(store, "long")
        assert [s.originator_version for s in kept] == [KEEP_EVERY, 2 * KEEP_EVERY, *(2 * KEEP_EVERY + 100 * k for k in (1, 2, 3))]
        sizes = [len(s.state) for s in kept]
        assert max(sizes) - min(sizes) < 100  # the state's size: the history's length adds a few digits at most
        log_bytes = sum(len(r.state) for r in LogReader(store).stored_events(session_log_id(scale.APP, USER, "long")))
        assert sum(sizes) < log_bytes / 50
        assert "invocations" not in kept[-1].state.decode()
        assert audit(store).ok
    finally:
        store.close()


def test_a_store_with_snapshots_that_carry_the_invocation_index_still_loads_and_verifies(store_url):
    """As written before: the aggregate's invocation index in every snapshot (digest over it)."""
    store = open_store(store_url)
    payloads = [scale._payload(i, "old") for i in range(KEEP_EVERY + 5)]
    first = SNAPSHOT_INTERVAL - 2  # at version 99: no snapshot yet
    scale.write_session(store, USER, "old", payloads[:first])
    log_id = session_log_id(scale.APP, USER, "old")
    log = store.application.repository.get(log_id)
    log.invocations = {f"old-{i}": [2 * i + 2, 2 * i + 3] for i in range(first // 2)}
    store.application.snapshots.put([SessionLog.Snapshot.take(log)])
    (old,) = _snapshots(store, "old")
    assert b'"invocations"' in old.state
    store = _fresh(store, store_url)
    try:
        fallbacks = store.application.snapshots.fallbacks
        loaded = store.application.repository.get(log_id)
        assert fallbacks.count == 0 and not hasattr(loaded, "invocations")  # served, the index dropped
        assert audit(store).ok  # the retired key is no drift
        service = LogSessionService(store)

        async def use() -> None:
            session = await service.get_session(app_name=scale.APP, user_id=USER, session_id="old")
            assert [e.id for e in session.events] == [p["id"] for p in payloads[:first]]
            fork = await service.fork_session(app_name=scale.APP, user_id=USER, session_id="old",
                                              at_invocation_id="old-10")
            assert fork.state["turn"] == 19  # cut before invocation 10 (events 20, 21): its start asked of the store
            for i in range(first, len(payloads)):
                event = scale.workload_event(i)
                event.invocation_id = f"old-{i // 2}"
                await service.append_event(session, event)

        asyncio.run(use())
        newest = _snapshots(store, "old")
        assert [s.originator_version for s in newest] == [KEEP_EVERY]  # the old one pruned with the others
        assert b'"invocations"' not in newest[0].state
        assert audit(store).ok
    finally:
        store.close()


def test_an_invocation_is_found_in_the_store(store_url):
    store = open_store(store_url)
    try:  # event i is at version i + 2 (after the genesis), two events per invocation
        scale.write_session(store, USER, "s", [scale._payload(i, "inv") for i in range(307)])
        log_id = session_log_id(scale.APP, USER, "s")
        assert store.invocation_span(log_id, "inv-0") == (2, 3)
        assert store.invocation_span(log_id, "inv-150") == (302, 303)
        assert store.invocation_span(log_id, "inv-153") == (308, 308)
        assert store.invocation_span(log_id, "nope") is None
        assert store.invocation_span(session_log_id(scale.APP, USER, "other"), "inv-0") is None
    finally:
        store.close()
