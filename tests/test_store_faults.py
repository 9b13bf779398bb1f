"""Faults at the store boundary give typed errors and lose nothing: a PostgreSQL connection cut
mid-append (StoreUnavailableError; retrying with the same event id is safe), a full SQLite file
(StoreFullError) and a read-only SQLite file (ReadOnlyStoreError for writes; reads and the
command line's audits still work)."""

from __future__ import annotations

import asyncio
import os
import stat
import threading
import time

import psycopg
import pytest
from google.genai import types

from domain.errors import ReadOnlyStoreError, StoreError, StoreFullError, StoreUnavailableError
from domain.events import Event
from runtime.operations.audit import logs_to_check, verify_store
from runtime.sessions import session_service_from_url
from tests.cli_helpers import cli


def said(author: str, text: str, invocation: str = "e-1") -> Event:
    return Event(author=author, invocation_id=invocation, content=types.Content(role="model", parts=[types.Part(text=text)]))


# -- connection loss (PostgreSQL) ---------------------------------------------------------


def _terminate_when_waiting(url: str, done: threading.Event, killed: list[int]) -> None:
    """From a second connection: terminate the backend waiting on our lock (the append in flight)."""
    with psycopg.connect(url, autocommit=True) as admin:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not done.is_set():
            rows = admin.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                " AND pid <> pg_backend_pid()"
            ).fetchall()
            if rows:
                for (pid,) in rows:
                    admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
                    killed.append(pid)
                return
            time.sleep(0.02)


async def test_a_connection_cut_mid_append_is_unavailable_and_a_retry_loses_nothing(postgres_url):
    sessions = session_service_from_url(postgres_url)
    session = await sessions.create_session(app_name="faults", user_id="ann", session_id="s")
    await sessions.append_event(session, said("user", "before the cut"))
    event = said("agent", "in flight when the connection died")

    # Hold the events table so the append waits inside its transaction, then cut that connection.
    blocker = psycopg.connect(postgres_url)
    blocker.execute("LOCK TABLE chronicle_events IN ACCESS EXCLUSIVE MODE")
    done, killed = threading.Event(), []
    killer = threading.Thread(target=_terminate_when_waiting, args=(postgres_url, done, killed))
    killer.start()
    try:
        with pytest.raises(StoreUnavailableError) as cut:
            await sessions.append_event(session, event)
    finally:
        done.set()
        killer.join()
        blocker.rollback()
        blocker.close()
    assert killed, "no append was waiting on the lock"
    assert "retry" in str(cut.value) and "same event id" in str(cut.value)
    assert not isinstance(cut.value.__cause__, StoreError)  # the driver's error is kept as the cause

    # The outcome was unknown; retrying the same event (same id) is safe and lands it once.
    fresh = await sessions.get_session(app_name="faults", user_id="ann", session_id="s")
    stored = await sessions.append_event(fresh, event)
    assert stored.id == event.id
    again = await sessions.append_event(fresh, event)  # once more: the stored event, not a copy
    assert again.id == event.id
    loaded = await sessions.get_session(app_name="faults", user_id="ann", session_id="s")
    assert [e.text() for e in loaded.events] == ["before the cut", "in flight when the connection died"]
    report = verify_store(sessions.store, logs_to_check(sessions.store))
    assert report.ok, report.broken
    await sessions.close()


async def test_a_store_whose_connections_were_all_cut_recovers_and_loses_nothing(postgres_url):
    sessions = session_service_from_url(postgres_url)
    session = await sessions.create_session(app_name="faults", user_id="ann", session_id="s")
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        # Every connection of the store's pool goes at once.
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    outcomes = []
    for attempt in range(3):  # the pool replaces dead connections as it finds them
        try:
            outcomes.append(await sessions.append_event(session, said("user", "after the restart", f"e-{attempt}")))
            break
        except StoreUnavailableError:
            outcomes.append("unavailable")
            session = await sessions.get_session(app_name="faults", user_id="ann", session_id="s")
    assert isinstance(outcomes[-1], Event), outcomes  # the store recovers by itself
    loaded = await sessions.get_session(app_name="faults", user_id="ann", session_id="s")
    assert [e.text() for e in loaded.events] == ["after the restart"]
    await sessions.close()


# -- a full disk (SQLite) -----------------------------------------------------------------


async def test_a_full_store_is_a_typed_error_and_keeps_what_it_had(sqlite_url):
    sessions = session_service_from_url(sqlite_url)
    session = await sessions.create_session(app_name="faults", user_id="ann", session_id="s")
    await sessions.append_event(session, said("user", "small"))
    # SQLite's page limit stands in for a full disk: the same SQLITE_FULL a full disk gives.
    writer = sessions.store.datastore._writer_connection()._sqlite_conn
    pages = writer.execute("PRAGMA page_count").fetchone()[0]
    writer.execute(f"PRAGMA max_page_count = {pages + 2}")
    big = "x" * 50_000
    appended = 1
    with pytest.raises(StoreFullError) as full:
        for i in range(50):
            await sessions.append_event(session, said("agent", f"{i} {big}", f"e-{i}"))
            appended += 1
    assert "full" in str(full.value) and "Nothing was written" in str(full.value)
    # What was stored before stays; the failed append left nothing half-written.
    fresh = session_service_from_url(sqlite_url)
    loaded = await fresh.get_session(app_name="faults", user_id="ann", session_id="s")
    assert len(loaded.events) == appended
    assert loaded.events[0].text() == "small"
    report = verify_store(fresh.store, logs_to_check(fresh.store))
    assert report.ok, report.broken
    await fresh.close()
    await sessions.close()


# -- a read-only file (SQLite) --------------------------------------------------------------


async def _make_store(url: str) -> None:
    sessions = session_service_from_url(url)
    session = await sessions.create_session(app_name="faults", user_id="ann", session_id="s", state={"user:plan": "pro"})
    await sessions.append_event(session, said("user", "hello"))
    await sessions.append_event(session, said("agent", "hi there"))
    await sessions.close()


def _read_only(path: str) -> None:
    """chmod 0444 the store's files and 0555 their directory (a read-only copy, or mount)."""
    directory = os.path.dirname(path)
    for name in os.listdir(directory):
        os.chmod(os.path.join(directory, name), stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    os.chmod(directory, 0o555)


def _writable_again(path: str) -> None:
    directory = os.path.dirname(path)
    os.chmod(directory, 0o755)
    for name in os.listdir(directory):
        os.chmod(os.path.join(directory, name), 0o644)


@pytest.mark.parametrize("how", ["chmod", "mode=ro"])
async def test_a_read_only_file_reads_and_refuses_writes(tmp_path, how):
    path = str(tmp_path / "copy" / "chronicle.db")
    os.makedirs(os.path.dirname(path))
    await _make_store(f"sqlite:///{path}")
    url = f"sqlite:///{path}"
    files = sorted(os.listdir(os.path.dirname(path)))
    if how == "chmod":
        _read_only(path)
    else:
        url += "?mode=ro"
    try:
        sessions = session_service_from_url(url)
        loaded = await sessions.get_session(app_name="faults", user_id="ann", session_id="s")
        assert [e.text() for e in loaded.events] == ["hello", "hi there"]
        assert loaded.state == {"user:plan": "pro"}
        assert [s.id for s in (await sessions.list_sessions(app_name="faults")).sessions] == ["s"]
        with pytest.raises(ReadOnlyStoreError, match="read-only"):
            await sessions.append_event(loaded, said("user", "refused"))
        with pytest.raises(ReadOnlyStoreError):
            await sessions.create_session(app_name="faults", user_id="ann", session_id="new")
        with pytest.raises(ReadOnlyStoreError):
            await sessions.delete_session(app_name="faults", user_id="ann", session_id="s")
        again = await sessions.get_session(app_name="faults", user_id="ann", session_id="s")
        assert [e.text() for e in again.events] == ["hello", "hi there"]
        await sessions.close()

        # The command line's audits of the copy.
        assert "every chain holds" in cli("verify", store=url).stdout
        assert "s" in cli("sessions", store=url).stdout
        assert "hi there" in cli("history", "s", store=url).stdout
        assert "hi there" in cli("export", "s", store=url).stdout
        assert "hi there" in cli("export", "s", "-f", "adk", store=url).stdout
        refused = cli("rewind", "s", "--before", "e-1", store=url, expect=3)
        assert "read-only" in refused.stderr and "Traceback" not in refused.stderr
        if how == "chmod":
            assert sorted(os.listdir(os.path.dirname(path))) == files  # nothing written beside it
    finally:
        if how == "chmod":
            _writable_again(path)


async def test_a_read_only_postgres_database_reads_and_refuses_writes(postgres_url):
    await _make_store(postgres_url)
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        database = admin.info.dbname
        admin.execute(f'ALTER DATABASE "{database}" SET default_transaction_read_only = on')
    sessions = session_service_from_url(postgres_url)
    loaded = await sessions.get_session(app_name="faults", user_id="ann", session_id="s")
    assert [e.text() for e in loaded.events] == ["hello", "hi there"]
    with pytest.raises(ReadOnlyStoreError, match="read-only"):
        await sessions.append_event(loaded, said("user", "refused"))
    with pytest.raises(ReadOnlyStoreError):
        await sessions.create_session(app_name="faults", user_id="ann", session_id="new")
    assert [e.text() for e in (await sessions.get_session(
        app_name="faults", user_id="ann", session_id="s")).events] == ["hello", "hi there"]
    await sessions.close()
    assert "every chain holds" in cli("verify", store=postgres_url).stdout
    assert "hi there" in cli("history", "s", store=postgres_url).stdout
    assert "hi there" in cli("export", "s", "-f", "adk", store=postgres_url).stdout
    assert "s" in cli("sessions", store=postgres_url).stdout


async def test_a_full_disk_during_an_artifact_save_is_store_full(tmp_path):
    """A real full disk (a small tmpfs): an artifact save that runs out of room is a StoreFullError
    (SQLite has already rolled the blob file back; no second error hides the first), and what was
    saved before still loads and verifies."""
    import subprocess

    from google.genai import types as genai_types

    from runtime.artifacts.service import LogArtifactService

    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(disk)], capture_output=True).returncode:
        pytest.skip("cannot mount a small tmpfs here (needs root) to fill a disk for real")
    try:
        url = f"sqlite:///{disk}/chronicle.db"
        sessions = session_service_from_url(url)
        await sessions.create_session(app_name="faults", user_id="ann", session_id="s")
        artifacts = LogArtifactService(sessions.store)
        scope = {"app_name": "faults", "user_id": "ann", "session_id": "s"}
        await artifacts.save_artifact(**scope, filename="first.txt", artifact=genai_types.Part(text="kept"))
        with pytest.raises(StoreFullError) as full:
            for i in range(40):
                data = os.urandom(256 * 1024)
                await artifacts.save_artifact(**scope, filename=f"big-{i}.bin",
                                              artifact=genai_types.Part.from_bytes(data=data, mime_type="x/y"))
        assert "full" in str(full.value) and "Nothing was written" in str(full.value)
        loaded = await artifacts.load_artifact(**scope, filename="first.txt")
        assert loaded.text == "kept"
        report = verify_store(sessions.store, logs_to_check(sessions.store))
        assert report.ok, (report.broken, report.drifted)
        await sessions.close()
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)
