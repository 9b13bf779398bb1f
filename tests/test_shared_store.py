"""Two service instances, or two processes, on one store see each other's writes at once."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap

import pytest

from domain import Event, EventActions
from runtime.sessions import StaleSessionError, session_service_from_url


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


async def test_another_process_sees_writes_when_append_returns(shared_store_url):
    svc = session_service_from_url(shared_store_url)
    s = await svc.create_session(app_name="app", user_id="u1", session_id="s1")
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
