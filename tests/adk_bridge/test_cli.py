"""Every Chronicle tool on sessions stock google-adk wrote through the bridge: the real `chronicle`
command in a subprocess, on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest

from tests.adk_bridge.helpers import APP, Shop
from tests.cli_helpers import cli, cli_json


@pytest.fixture
async def store(shared_store_url):
    """A store holding one ADK conversation (3 invocations) that ADK then rewound by one."""
    shop = Shop(shared_store_url)
    await shop.sessions.create_session(app_name=APP, user_id="ann", session_id="s1", state={"tier": "gold"})
    for message in ("add lamp", "add desk", "add chair"):
        await shop.turn("ann", "s1", message)
    session = await shop.sessions.get_session(app_name=APP, user_id="ann", session_id="s1")
    third = [e.invocation_id for e in session.events if e.author == "user"][2]
    await shop.runner.rewind_async(user_id="ann", session_id="s1", rewind_before_invocation_id=third)
    await shop.close()
    return shared_store_url


def test_history_verify_state_at_and_diff(store):
    history = cli_json("history", "s1", store=store)
    invocations = history["timeline"]["invocations"]
    # The three turns, the third rewound, then the rewind's own marker invocation.
    assert [i["rewound"] for i in invocations] == [False, False, True, False]
    text = cli("history", "s1", store=store).stdout
    assert 'add_to_cart(item="desk")' in text and "REWIND" in text
    assert "every chain holds" in cli("verify", store=store).stdout

    now = cli_json("state-at", "s1", store=store)
    assert now["state"]["cart"] == ["lamp", "desk"] and now["state"]["tier"] == "gold"
    before = cli_json("state-at", "s1", f"before:{invocations[1]['invocation_id']}", store=store)
    assert before["state"]["cart"] == ["lamp"] and before["artifacts"] == {"receipt.txt": 0}
    diff = cli_json("diff", "s1", "v1", store=store)
    cart = next(c for c in diff["changes"] if c["key"] == "cart")
    assert cart["after"] == {"present": True, "value": ["lamp", "desk"]} and cart["writes"][0]["author"] == "clerk"


def test_fork_export_and_analytics(store):
    history = cli_json("history", "s1", store=store)
    second = history["timeline"]["invocations"][1]["invocation_id"]
    fork = cli_json("fork", "s1", "--at", second, "--new-id", "what-if", store=store)
    assert fork["state"]["cart"] == ["lamp"] and fork["state"]["tier"] == "gold"
    adk = json.loads(cli("export", "s1", "-f", "adk", store=store).stdout)
    assert adk["appName"] == APP and adk["state"]["cart"] == ["lamp", "desk"]
    # By default the export leaves out what ADK's rewind took back, marker included; with
    # --include-rewound it is the session as ADK's service returns it, the marker last.
    assert not any("rewindBeforeInvocationId" in e.get("actions", {}) for e in adk["events"])
    whole = json.loads(cli("export", "s1", "-f", "adk", "--include-rewound", store=store).stdout)
    assert len(whole["events"]) > len(adk["events"])
    assert whole["events"][-1]["actions"]["rewindBeforeInvocationId"]
    md = cli("export", "s1", "-f", "markdown", store=store).stdout
    assert "calls `add_to_cart`" in md
    analytics = cli_json("analytics", store=store)
    assert APP in json.dumps(analytics)


def test_purge(store):
    dry = cli("purge", "--app", APP, "--user", "ann", store=store, expect=1)
    assert "session s1 (user ann)" in dry.stdout and "Nothing was deleted" in dry.stderr
    report = cli_json("purge", "--app", APP, "--user", "ann", "--by", "ops", "--reason", "test", "--yes", store=store)
    assert "s1" in json.dumps(report)
    assert cli_json("sessions", store=store) == []
    assert "every chain holds" in cli("verify", store=store).stdout


def test_bench_adk_runner_runs_stock_adk_on_both():
    table = cli("bench", "adk", "--runner", "--quick", "--runs", "1", "--stores", "sqlite", "--markdown").stdout
    rows = [line for line in table.splitlines() if line.startswith("| ")][1:]
    assert [r.split("|")[1].strip() for r in rows] == [
        "floor: ADK InMemorySessionService", "ADK SqliteSessionService", "bridge, Chronicle on SQLite"]
    assert "x (target ≥2x)" in rows[2] and "(target ≤1.5x)" in rows[2]
