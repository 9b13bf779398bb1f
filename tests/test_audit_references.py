"""No false tamper alarm: artifacts saved for a session that never existed (stock ADK's artifact
service, and the bridge, save into any session id) are a note, on every store; a session deleted
outside Chronicle while its artifacts stay is still reported, with what shows it existed."""

from __future__ import annotations

import asyncio

from google.genai import types

from domain import Event
from domain.session_log import session_log_id
from runtime.artifacts.service import LogArtifactService
from runtime.operations.audit import audit
from runtime.sessions import LogSessionService
from runtime.stores import open_store
from tests.cli_helpers import cli
from tests.test_tamper import tampered_db  # noqa: F401 - fixture


async def _save(store, session_id: str) -> None:
    artifacts = LogArtifactService(store)
    await artifacts.save_artifact(app_name="app", user_id="ann", session_id=session_id, filename="a.txt",
                                  artifact=types.Part(text="x"))


def test_artifacts_of_a_session_that_never_existed_are_a_note_not_tampering(store_url):
    store = open_store(store_url)
    try:
        asyncio.run(_save(store, "never"))
        report = audit(store)
        assert report.ok, report.drifted
        (note,) = report.notes
        assert "session never" in note and "never existed" in note
    finally:
        store.close()
    if not store_url.startswith("memory"):
        done = cli("verify", store=store_url)
        assert "NOTE" in done.stdout and "every chain holds" in done.stdout


def test_a_session_deleted_outside_chronicle_with_its_artifacts_left_is_reported(tampered_db):
    async def fill() -> None:
        store = open_store(tampered_db.url)
        try:
            sessions = LogSessionService(store)
            session = await sessions.create_session(app_name="app", user_id="ann", session_id="real")
            await sessions.append_event(session, Event(author="user", invocation_id="i-1"))
            await _save(store, "real")
        finally:
            store.close()

    asyncio.run(fill())
    log_id = tampered_db.raw_id(session_log_id("app", "ann", "real"))
    tampered_db.sql("DELETE FROM chronicle_events WHERE originator_id = %s", (log_id,))
    tampered_db.sql("DELETE FROM chronicle_sessions WHERE log_id = %s", (log_id,))
    report = tampered_db.audit()
    (found,) = [d for d in report.drifted if d.key == "exists" and "session real" in d.where]
    assert "deleted outside Chronicle" in found.reason and "event-id claims remain" in found.reason
    assert not report.notes
    cli("verify", store=tampered_db.url, expect=4)
