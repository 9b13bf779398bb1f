"""`chronicle bench scale`: the stores it builds in bulk are what live appends would have written
(verify finds nothing wrong, the sessions read back whole, snapshots where a live append takes
them), and the command prints its table at tiny sizes (no timed assertions)."""

from __future__ import annotations

import asyncio
import json

from runtime.log_reader import LogReader
from runtime.operations.audit import audit
from runtime.sessions.service import LogSessionService
from runtime.stores import open_store
from runtime.stores.application import SNAPSHOT_INTERVAL
from domain.session_log import session_log_id
from tests.cli_helpers import cli
from tools.bench import scale


def test_a_bulk_built_store_is_what_live_appends_write(store_url):
    store = open_store(store_url)
    try:
        payloads = [scale._payload(i, "long") for i in range(250)]
        scale.write_session(store, "u", "short", [scale._payload(i, "short") for i in range(6)])
        scale.write_session(store, "u", "long", payloads)  # its user: key written last
        report = audit(store)
        assert report.ok, report
        assert report.logs == 2 and report.events == 250 + 1 + 6 + 1
        snapshots = LogReader(store).snapshots(session_log_id(scale.APP, "u", "long"))
        assert sorted(s.originator_version for s in snapshots)[-1] == 200  # the last a live append took
        asyncio.run(_read_back(LogSessionService(store), payloads))
    finally:
        store.close()


async def _read_back(service, payloads) -> None:
    session = await service.get_session(app_name=scale.APP, user_id="u", session_id="long")
    assert [e.id for e in session.events] == [p["id"] for p in payloads]
    assert session.state["turn"] == 249 and session.state["user:turns_seen"] == 240
    listed = await service.list_sessions(app_name=scale.APP, user_id="u")
    assert sorted(s.id for s in listed.sessions) == ["long", "short"]


def test_the_command_prints_the_table(tmp_path):
    table = json.loads(cli("bench", "scale", "--stores", "sqlite", "--n", "20", "--l", "120", "--runs", "1",
                           "--json").stdout)
    operations = [row[1] for row in table["rows"]]
    assert "GET …/history of the long session" in operations and "verify of one short session" in operations
    assert "GET /chronicle/sessions?q=s1 (search: a word 11 sessions hold)" in operations
    assert "`verify --since 0` (in process: every chain and catalog row)" in operations
    assert "N=20 sessions" in table["title"] and "L=120 events" in table["title"]
    snapshots = next(row for row in table["rows"] if row[1] == "snapshots of the long session")
    assert "× its events'" in snapshots[4]


def test_sizes_go_with_scale_only():
    assert "--n and --l go with `chronicle bench scale`" in cli("bench", "sessions", "--n", "5", expect=1).stderr
    assert "at least 1" in cli("bench", "scale", "--l", "0", expect=1).stderr
    assert "unknown store kind" in cli("bench", "scale", "--stores", "memory", expect=1).stderr
