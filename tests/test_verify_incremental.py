"""`chronicle verify --since POSITION|sealed`: checks only what was appended after a log position
(each touched log from its first new event, linked from the link before it), and says where the
next incremental check starts. What an earlier check covered is not read again: a full verify
rechecks everything."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import closing

from domain import Event, EventActions
from domain.session_log import session_log_id
from runtime.operations.audit import audit, audit_since
from runtime.sessions.service import LogSessionService
from runtime.stores import open_store
from tests.cli_helpers import cli
from tools.bench import scale


def _store_with_sessions(url: str):
    store = open_store(url)
    for s in range(3):
        scale.write_session(store, "u", f"s{s}", [scale._payload(i, f"s{s}") for i in range(6)])
    return store


def _append(store, session_id: str, n: int) -> None:
    async def go() -> None:
        service = LogSessionService(store)
        session = await service.get_session(app_name=scale.APP, user_id="u", session_id=session_id)
        for i in range(n):
            await service.append_event(session, Event(author="user", invocation_id=f"new-{i}",
                                                      actions=EventActions(state_delta={"n": i})))

    asyncio.run(go())


def test_an_incremental_check_reads_what_was_appended_since(store_url):
    store = _store_with_sessions(store_url)
    try:
        first = audit_since(store, 0)
        assert first.ok and first.logs == 3 and first.events == 3 * 7 and first.position > 0
        assert audit_since(store, first.position).events == 0  # nothing new
        _append(store, "s1", 4)
        second = audit_since(store, first.position)
        assert second.ok and (second.logs, second.events) == (1, 4) and second.position > first.position
        assert audit(store).ok
    finally:
        store.close()


def test_it_finds_a_new_event_edited_and_leaves_older_ones_to_a_full_verify(tmp_path):
    url = f"sqlite:///{tmp_path}/c.db"
    store = _store_with_sessions(url)
    position = audit_since(store, 0).position
    _append(store, "s2", 3)
    store.close()
    with closing(sqlite3.connect(tmp_path / "c.db")) as db:
        for version in (3, 9):  # an old event and a new one of s2
            db.execute("UPDATE chronicle_events SET state = CAST(replace(CAST(state AS TEXT), '\"n\":', '\"m\":')"
                       " AS BLOB) WHERE originator_id = ? AND originator_version = ?",
                       (session_log_id(scale.APP, "u", "s2").hex, version))
            db.execute("UPDATE chronicle_events SET state = CAST(replace(CAST(state AS TEXT), 'fox', 'cat')"
                       " AS BLOB) WHERE originator_id = ? AND originator_version = ?",
                       (session_log_id(scale.APP, "u", "s2").hex, version))
        db.commit()
    report = json.loads(cli("verify", "--since", str(position), "--json", store=url, expect=4).stdout)
    assert report["since"] == position and [(b["session_id"], b["version"]) for b in report["broken"]] == [("s2", 9)]
    full = json.loads(cli("verify", "--json", store=url, expect=4).stdout)
    assert [(b["session_id"], b["version"]) for b in full["broken"]] == [("s2", 3)]  # the first break of the log


def test_the_command_says_where_to_start_next_time(tmp_path):
    url = f"sqlite:///{tmp_path}/c.db"
    _store_with_sessions(url).close()
    done = cli("verify", "--since", "0", store=url)
    assert "every chain holds" in done.stdout and "next time: --since " in done.stdout
    assert "no seal yet" in cli("verify", "--since", "sealed", store=url, expect=1).stderr
    assert "a log position" in cli("verify", "--since", "yesterday", store=url, expect=1).stderr
    assert "leave out --app" in cli("verify", "--since", "0", "--app", "x", store=url, expect=1).stderr


def test_since_sealed_starts_where_the_newest_seal_ends(store_url):
    from domain.seal_keys import HMAC_SHA256, new_key
    from runtime.operations.seal import seal, sealed_position

    store = _store_with_sessions(store_url)
    try:
        assert sealed_position(store) is None
        seal(store, new_key(HMAC_SHA256))
        after = sealed_position(store)
        assert after is not None and audit_since(store, after).logs == 0  # the seal's own log is not counted
        _append(store, "s0", 2)
        report = audit_since(store, after)
        assert report.ok and (report.logs, report.events) == (1, 2)
    finally:
        store.close()
