"""Two service instances, or two processes, on one store see each other's writes at once."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time

import pytest

from domain import Event, EventActions
from domain.errors import StoreUnavailableError
from runtime.sessions import GetSessionConfig, StaleSessionError, session_service_from_url


async def test_second_instance_reads_first_instances_writes(shared_store_url):
    a = session_service_from_url(shared_store_url)
    b = session_service_from_url(shared_store_url)
    s = await a.create_session(app_name="app", user_id="u1", session_id="s1")
    seen_by_b = await b.get_session(app_name="app", user_id="u1", session_id="s1")
    assert seen_by_b is not None
    await a.append_event(s, Event(author="user", actions=EventActions(state_delta={"k": 1, "user:u": 2, "app:a": 3})))
    fresh = await b.get_session(app_name="app", user_id="u1", session_id="s1")
    assert fresh.state == {"k": 1, "user:u": 2, "app:a": 3} and len(fresh.events) == 1
    other = await b.create_session(app_name="app", user_id="u1")
    assert other.state == {"user:u": 2, "app:a": 3}
    # b's older copy is now stale; b's fresh copy can write and a sees it
    with pytest.raises(StaleSessionError):
        await b.append_event(seen_by_b, Event(author="user"))
    await b.append_event(fresh, Event(author="model", actions=EventActions(state_delta={"k": 2})))
    assert (await a.get_session(app_name="app", user_id="u1", session_id="s1")).state["k"] == 2
    # a's cached session object is behind b's write
    with pytest.raises(StaleSessionError):
        await a.append_event(s, Event(author="user"))
    await a.close()
    await b.close()


async def test_a_windowed_read_catches_up_with_another_instances_writes(shared_store_url):
    a = session_service_from_url(shared_store_url)
    b = session_service_from_url(shared_store_url)
    s = await a.create_session(app_name="app", user_id="u1", session_id="w")
    for i in range(3):
        await a.append_event(s, Event(author="user", actions=EventActions(state_delta={"n": i})))
    recent = GetSessionConfig(num_recent_events=2)
    assert [e.actions.state_delta["n"] for e in (await a.get_session(app_name="app", user_id="u1", session_id="w", config=recent)).events] == [1, 2]
    theirs = await b.get_session(app_name="app", user_id="u1", session_id="w")
    await b.append_event(theirs, Event(author="model", actions=EventActions(state_delta={"n": 3})))
    # a's cached log is one version behind: the window and the state must both show b's write
    seen = await a.get_session(app_name="app", user_id="u1", session_id="w", config=recent)
    assert [e.actions.state_delta["n"] for e in seen.events] == [2, 3] and seen.state["n"] == 3
    await a.append_event(seen, Event(author="user"))  # and a can write from what it read
    await a.close()
    await b.close()


async def test_another_process_sees_writes_when_append_returns(shared_store_url):
    svc = session_service_from_url(shared_store_url)
    await svc.create_session(app_name="app", user_id="u1", session_id="s1")
    child = textwrap.dedent(
        f"""
        import asyncio, sys
        from domain import Event, EventActions
        from runtime.sessions import session_service_from_url

        async def main():
            svc = session_service_from_url({shared_store_url!r})
            s = await svc.get_session(app_name="app", user_id="u1", session_id="s1")
            await svc.append_event(s, Event(author="child", actions=EventActions(state_delta={{"user:from_child": 1}})))
            print(len(s.events))
            await svc.close()

        asyncio.run(main())
        """
    )
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = await svc.get_session(app_name="app", user_id="u1", session_id="s1")
    assert [e.author for e in loaded.events] == ["child"]
    assert loaded.state == {"user:from_child": 1}
    assert (await svc.create_session(app_name="app", user_id="u1")).state == {"user:from_child": 1}
    await svc.close()


async def test_opening_a_store_does_not_disturb_running_writers(postgres_url):
    writer = session_service_from_url(postgres_url)
    s = await writer.create_session(app_name="app", user_id="u1")

    async def write() -> None:
        for i in range(150):
            await writer.append_event(s, Event(author="user", actions=EventActions(state_delta={"i": i})))

    async def open_and_close() -> None:
        for _ in range(6):
            other = session_service_from_url(postgres_url)  # no DDL once the schema exists
            await other.list_sessions(app_name="app")
            await other.close()

    await asyncio.gather(write(), open_and_close())
    loaded = await writer.get_session(app_name="app", user_id="u1", session_id=s.id)
    assert len(loaded.events) == 150 and loaded.state == {"i": 149}
    await writer.close()


async def test_a_failed_write_leaves_no_phantom_event(store_url):
    from eventsourcing.persistence import OperationalError

    service = session_service_from_url(store_url)
    s = await service.create_session(app_name="app", user_id="u1")
    recorder = service.store.recorder
    real_insert = recorder.insert_events
    calls = []

    def failing_once(*args, **kwargs):  # a dropped connection, a deadlock victim, ...
        if not calls:
            calls.append(1)
            raise OperationalError("connection lost")
        return real_insert(*args, **kwargs)

    recorder.insert_events = failing_once
    lost = Event(author="user", actions=EventActions(state_delta={"k": "lost"}))
    with pytest.raises(StoreUnavailableError):  # typed at the store boundary; the library's is its cause
        await service.append_event(s, lost)
    assert s.events == [] and s.version == 1
    await service.append_event(s, Event(author="user", actions=EventActions(state_delta={"k": "kept"})))
    loaded = await service.get_session(app_name="app", user_id="u1", session_id=s.id)
    assert [e.actions.state_delta["k"] for e in loaded.events] == ["kept"] and loaded.state == {"k": "kept"}
    await service.append_event(s, lost)  # retrying the lost event now stores it
    assert (await service.get_session(app_name="app", user_id="u1", session_id=s.id)).state == {"k": "lost"}
    await service.close()


async def test_a_postgres_store_made_by_an_earlier_version_gets_the_current_append_function(postgres_url):
    import psycopg

    from runtime.stores.postgres import parse_postgres_url

    first = session_service_from_url(postgres_url)
    s = await first.create_session(app_name="app", user_id="u1", session_id="old")
    await first.append_event(s, Event(author="user", actions=EventActions(state_delta={"k": 1})))
    await first.close()
    # As an earlier release left it: tables and data, but not this release's append functions.
    with psycopg.connect(**parse_postgres_url(postgres_url), autocommit=True) as conn:
        conn.execute("DROP FUNCTION chronicle_append_v2(uuid[], bigint[], text[], bytea[], jsonb)")
        conn.execute("DROP FUNCTION chronicle_append_one(uuid, bigint, text, bytea, jsonb)")
        conn.execute(  # and the catalog index it had, which every append had to update
            "CREATE INDEX chronicle_sessions_by_app ON chronicle_sessions (app_name, user_id, last_update_time)"
        )
    later = session_service_from_url(postgres_url)
    with psycopg.connect(**parse_postgres_url(postgres_url), autocommit=True) as conn:
        assert conn.execute("SELECT to_regclass('chronicle_sessions_by_app')").fetchone() == (None,)
    s = await later.get_session(app_name="app", user_id="u1", session_id="old")
    await later.append_event(s, Event(author="model", actions=EventActions(state_delta={"k": 2})))
    again = await later.get_session(app_name="app", user_id="u1", session_id="old")
    assert again.state == {"k": 2} and len(again.events) == 2
    await later.close()


async def test_a_lone_writer_keeps_to_one_warm_postgres_connection(postgres_url):
    """Calls one after another reuse the connection returned last (its server process
    warm), while the connections opened for a burst stay in the pool."""
    svc = session_service_from_url(postgres_url)
    datastore = svc.store.recorder.datastore

    def backend(hold_s: float = 0.0) -> int:
        with datastore.get_connection() as conn:
            time.sleep(hold_s)
            return conn.execute("SELECT pg_backend_pid() AS pid").fetchone()["pid"]

    # A burst: eight calls at once make the pool hold several connections.
    await asyncio.gather(*(svc.store.call(backend, 0.05) for _ in range(8)))
    assert len(datastore.pool._pool) > 1
    s = await svc.create_session(app_name="app", user_id="u")
    for i in range(5):
        await svc.append_event(s, Event(author="user", actions=EventActions(state_delta={"i": i})))
    assert len({await svc.store.call(backend) for _ in range(10)}) == 1
    await svc.close()
