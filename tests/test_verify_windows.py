"""``verify`` reads, checks and refolds a log a window of rows at a time (so checking a long
session holds one window, never all its events): with windows much smaller than the logs, the
tamper suite's edits are still found where they are, and no read returns more than a window."""

from __future__ import annotations

from typing import Any

import pytest

from runtime.log_reader import LogReader
from runtime.operations import audit as auditing
from tests import test_tamper as tamper
from tests.test_tamper import APP, LONG, LONG_LOG, USER, drifts, tampered, tampered_db  # noqa: F401 - fixtures

SMALL = 7  # the long session (231 events, snapshots at 100 and 200) spans 33 windows


@pytest.fixture(autouse=True)
def small_windows(monkeypatch):
    monkeypatch.setattr(auditing, "WINDOW", SMALL)


# The tamper suite's edits, found the same way through small windows.
test_an_untouched_store_verifies = tamper.test_an_untouched_store_verifies
test_a_snapshot_whose_state_was_edited_is_never_served = tamper.test_a_snapshot_whose_state_was_edited_is_never_served
test_a_snapshot_rewritten_is_caught = tamper.test_a_snapshot_rewritten_with_its_digests_recomputed_is_caught_by_verify
test_event_id_claims_deleted_or_pointed_elsewhere = tamper.test_event_id_claims_deleted_or_pointed_elsewhere
test_a_session_truncated_behind_its_catalog_row = tamper.test_a_session_truncated_behind_its_catalog_row
test_the_newest_artifact_version_deleted = tamper.test_the_newest_artifact_version_deleted


def test_an_event_edited_deep_in_a_long_session_breaks_its_chain_there(tampered):
    edited = tampered.payload("chronicle_events", LONG_LOG, 150)["event"]["id"]
    events = tampered.audit().events

    def evil(payload: dict[str, Any]) -> None:
        payload["event"]["actions"]["state_delta"]["turn"] = -1

    tampered.edit_payload("chronicle_events", LONG_LOG, 150, evil)
    report = tampered.audit()
    (broken,) = report.broken
    assert (broken.log_id, broken.version, broken.event_id) == (str(LONG_LOG), 150, edited)
    assert "does not match its digest" in broken.reason and broken.session_id == "long"
    assert report.events == events  # every row was still read, past the break too


def test_no_read_of_a_log_returns_more_than_a_window(tampered, monkeypatch):
    largest: dict[str, int] = {}
    read = LogReader.stored_events

    def counted(self, log_id, **kwargs):
        rows = read(self, log_id, **kwargs)
        largest[str(log_id)] = max(largest.get(str(log_id), 0), len(rows))
        return rows

    monkeypatch.setattr(LogReader, "stored_events", counted)
    store = tampered.fresh()
    try:
        report = auditing.audit(store, app_name=APP, user_id=USER, session_id="long")
    finally:
        if tampered.kind != "memory":
            store.close()
    assert report.ok and report.events == LONG + 1
    assert largest[str(LONG_LOG)] == SMALL


def test_a_claim_no_event_of_a_long_session_has_is_found(tampered):
    """Claims are checked window by window against each window's event ids; one that names no
    event at all shows in the count of the log's claims, and is then named."""
    if tampered.kind == "memory":
        tampered.store.recorder._claims[(LONG_LOG, "ghost")] = 5
    else:
        tampered.sql("INSERT INTO chronicle_event_ids (log_id, event_id, version) VALUES (%s, %s, %s)",
                     (tampered.raw_id(LONG_LOG), "ghost", 5))
    (found,) = drifts(tampered.audit(), "event-id claim")
    assert (found.key, found.found, found.expected, found.log_id) == ("ghost", 5, None, str(LONG_LOG))
    assert found.reason == "no event of the log has this id"
