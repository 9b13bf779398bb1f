"""`chronicle import-adk`: google-adk session databases, built here with the DDL ADK's services create,
imported into Chronicle — ids, authors, timestamps and scoped state kept, idempotently.

The layouts (see runtime/operations/adk_source.py): SqliteSessionService (SQLite only); DatabaseSessionService
schema v1 (JSON event_data) and schema v0 (pickled EventActions), each on SQLite and PostgreSQL.
"""

from __future__ import annotations

import datetime as dt
import json
import pickle
import sqlite3
import sys
import types as pytypes
from contextlib import closing
from typing import Any, Optional

import psycopg
import pydantic
import pytest
from google.genai import types

from domain import Event, EventActions
from runtime.stores.postgres import parse_postgres_url
from tests.cli_helpers import cli, cli_json

T0 = 1_750_000_000.25  # event times with sub-second parts, kept exactly

# -- the DDL google-adk creates ------------------------------------------------------------

SQLITE_SERVICE_DDL = """
CREATE TABLE IF NOT EXISTS app_states (
    app_name TEXT PRIMARY KEY, state TEXT NOT NULL, update_time REAL NOT NULL);
CREATE TABLE IF NOT EXISTS user_states (
    app_name TEXT NOT NULL, user_id TEXT NOT NULL, state TEXT NOT NULL, update_time REAL NOT NULL,
    PRIMARY KEY (app_name, user_id));
CREATE TABLE IF NOT EXISTS sessions (
    app_name TEXT NOT NULL, user_id TEXT NOT NULL, id TEXT NOT NULL, state TEXT NOT NULL,
    create_time REAL NOT NULL, update_time REAL NOT NULL, PRIMARY KEY (app_name, user_id, id));
CREATE TABLE IF NOT EXISTS events (
    id TEXT NOT NULL, app_name TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL,
    invocation_id TEXT NOT NULL, timestamp REAL NOT NULL, event_data TEXT NOT NULL,
    PRIMARY KEY (app_name, user_id, session_id, id),
    FOREIGN KEY (app_name, user_id, session_id) REFERENCES sessions(app_name, user_id, id) ON DELETE CASCADE);
"""


def database_ddl(schema: str, dialect: str) -> str:
    """DatabaseSessionService's tables as SQLAlchemy creates them (schema v0 or v1, SQLite or PostgreSQL)."""
    pg = dialect == "postgres"
    js, ts, blob, boolean = ("JSONB", "TIMESTAMP WITHOUT TIME ZONE", "BYTEA", "BOOLEAN") if pg else \
        ("TEXT", "DATETIME", "BLOB", "BOOLEAN")
    key = "VARCHAR(128) NOT NULL"
    ddl = [
        f"CREATE TABLE sessions (app_name {key}, user_id {key}, id {key}, state {js} NOT NULL,"
        f" create_time {ts} NOT NULL, update_time {ts} NOT NULL"
        + (", event_sequence INTEGER NOT NULL" if schema == "v1" else "")
        + ", PRIMARY KEY (app_name, user_id, id))",
        f"CREATE TABLE app_states (app_name {key}, state {js} NOT NULL, update_time {ts} NOT NULL, PRIMARY KEY (app_name))",
        f"CREATE TABLE user_states (app_name {key}, user_id {key}, state {js} NOT NULL, update_time {ts} NOT NULL,"
        " PRIMARY KEY (app_name, user_id))",
    ]
    if schema == "v1":
        ddl.append("CREATE TABLE adk_internal_metadata (key VARCHAR(128) NOT NULL, value VARCHAR(256) NOT NULL,"
                   " PRIMARY KEY (key))")
        events = f"invocation_id VARCHAR(256) NOT NULL, timestamp {ts} NOT NULL, event_data {js}"
    else:
        events = (f"invocation_id VARCHAR(256) NOT NULL, author VARCHAR(256) NOT NULL, actions {blob} NOT NULL,"
                  f" long_running_tool_ids_json TEXT, branch VARCHAR(256), timestamp {ts} NOT NULL,"
                  f" content {js}, grounding_metadata {js}, custom_metadata {js}, usage_metadata {js},"
                  f" citation_metadata {js}, partial {boolean}, turn_complete {boolean}, error_code VARCHAR(256),"
                  f" error_message TEXT, interrupted {boolean}, input_transcription {js}, output_transcription {js}")
    ddl.append(
        f"CREATE TABLE events (id {key}, app_name {key}, user_id {key}, session_id {key}, {events},"
        " PRIMARY KEY (id, app_name, user_id, session_id),"
        " FOREIGN KEY (app_name, user_id, session_id) REFERENCES sessions (app_name, user_id, id) ON DELETE CASCADE)"
    )
    ddl.append("CREATE INDEX idx_events_app_user_session_ts ON events (app_name, user_id, session_id, timestamp DESC)")
    return ";\n".join(ddl)


# -- what the ADK database holds -------------------------------------------------------------


def text(role: str, value: str) -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=value)])


def conversation() -> dict[tuple[str, str], dict[str, Any]]:
    """Two sessions of app 'shop', as ADK would have stored them."""
    call = types.FunctionCall(id="call-1", name="add_to_cart", args={"item": "lamp"})
    ann = [
        Event(id="a1", invocation_id="i1", author="user", timestamp=T0, content=text("user", "I want a lamp")),
        Event(id="a2", invocation_id="i1", author="shopper", timestamp=T0 + 1.5,
              content=types.Content(role="model", parts=[types.Part(function_call=call)]),
              usage_metadata=types.GenerateContentResponseUsageMetadata(
                  prompt_token_count=12, candidates_token_count=3, total_token_count=15)),
        Event(id="a3", invocation_id="i1", author="shopper", timestamp=T0 + 1.75,
              content=types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
                  id="call-1", name="add_to_cart", response={"ok": True}))]),
              actions=EventActions(state_delta={"cart": ["lamp"], "user:visits": 1}, artifact_delta={"receipt.txt": 0})),
        Event(id="a4", invocation_id="i1", author="shopper", timestamp=T0 + 2.125, content=text("model", "Added a lamp.")),
        Event(id="a5", invocation_id="i2", author="user", timestamp=T0 + 60, content=text("user", "thanks")),
        Event(id="a6", invocation_id="i2", author="shopper", timestamp=T0 + 61, content=text("model", "You're welcome!")),
    ]
    bob = [
        Event(id="b1", invocation_id="j1", author="user", timestamp=T0 + 100, content=text("user", "any deals?")),
        Event(id="b2", invocation_id="j1", author="shopper", timestamp=T0 + 101, content=text("model", "Spring sale!"),
              actions=EventActions(state_delta={"app:promo": "spring"})),
    ]
    # Fields newer google-adk releases write (JSON layouts only, but citation_metadata, which the v0
    # schema has a column for): ADK 2.x's are stored as fields; one Chronicle does not know (a
    # release after 2.13) is kept, not lost.
    newer = {"a6": {"citation_metadata": {"citations": [{"uri": "https://example.com/lamps"}]},
                    "interaction_id": "int-7", "node_info": {"path": "shop/answer@1", "output_for": ["shop"]},
                    "output": {"reply": "welcome"}, "isolation_scope": "call-1", "from_adk_3": {"x": 1}}}
    return {
        ("ann", "s1"): {"events": ann, "state": {"cart": ["lamp"], "note": "vip"}, "created": T0 - 10, "newer": newer},
        ("bob", "s2"): {"events": bob, "state": {}, "created": T0 + 99, "newer": {}},
    }


APP_STATE = {"currency": "EUR", "promo": "spring"}  # without prefixes, as ADK keeps them
USER_STATES = {"ann": {"name": "Ann", "visits": 2}, "bob": {}}  # visits: 2 was written outside any event


def adk_json(event: Event, newer: dict[str, Any]) -> dict[str, Any]:
    return {**event.model_dump(mode="json", exclude_none=True), **newer.get(event.id, {})}


def adk_pickle(actions: dict[str, Any]) -> bytes:
    """An EventActions pickled the way google-adk's v0 schema did (module google.adk.events.event_actions)."""
    name = "google.adk.events.event_actions"

    class EventActions(pydantic.BaseModel):  # noqa: F811 - stands for ADK's class while pickling
        skip_summarization: Optional[bool] = None
        state_delta: dict[str, Any] = {}
        artifact_delta: dict[str, int] = {}
        transfer_to_agent: Optional[str] = None
        escalate: Optional[bool] = None
        requested_auth_configs: dict[str, Any] = {}

    EventActions.__module__, EventActions.__qualname__ = name, "EventActions"
    module = pytypes.ModuleType(name)
    module.EventActions = EventActions
    fake = {"google.adk": pytypes.ModuleType("google.adk"), "google.adk.events": pytypes.ModuleType("google.adk.events"),
            name: module}
    saved = {k: sys.modules.get(k) for k in fake}
    sys.modules.update(fake)
    try:
        return pickle.dumps(EventActions(**actions), protocol=pickle.HIGHEST_PROTOCOL)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def local_naive(ts: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(ts)  # how ADK writes event times


def utc_naive(ts: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).replace(tzinfo=None)  # the database's now()


class Adk:
    """Writes ADK rows into a SQLite file or a PostgreSQL database."""

    def __init__(self, layout: str, dialect: str, target: str):
        self.layout, self.dialect, self.target = layout, dialect, target
        if dialect == "sqlite":
            self.db: Any = sqlite3.connect(target)
        else:
            self.db = psycopg.connect(**parse_postgres_url(target), autocommit=True)
        ddl = SQLITE_SERVICE_DDL if layout == "sqlite-service" else database_ddl(layout, dialect)
        for statement in filter(str.strip, ddl.split(";")):
            self.db.execute(statement)
        if layout == "v1":
            self.run("INSERT INTO adk_internal_metadata VALUES (?, ?)", ("schema_version", "1"))

    def run(self, sql: str, params: tuple) -> None:
        self.db.execute(sql if self.dialect == "sqlite" else sql.replace("?", "%s"), params)
        if self.dialect == "sqlite":
            self.db.commit()

    def js(self, value: Any) -> Any:
        if value is None:
            return None
        return json.dumps(value) if self.dialect == "sqlite" else psycopg.types.json.Jsonb(value)

    def session_time(self, ts: float) -> Any:
        if self.layout == "sqlite-service":
            return ts
        return str(utc_naive(ts)) if self.dialect == "sqlite" else utc_naive(ts)

    def event_time(self, ts: float) -> Any:
        if self.layout == "sqlite-service":
            return ts
        return str(local_naive(ts)) if self.dialect == "sqlite" else local_naive(ts)

    def add_session(self, user: str, session_id: str, state: dict[str, Any], created: float) -> None:
        columns = "app_name, user_id, id, state, create_time, update_time" + (", event_sequence" if self.layout == "v1" else "")
        values = ["shop", user, session_id, self.js(state), self.session_time(created), self.session_time(created)]
        if self.layout == "v1":
            values.append(0)
        self.run(f"INSERT INTO sessions ({columns}) VALUES ({', '.join('?' * len(values))})", tuple(values))

    def add_event(self, user: str, session_id: str, event: Event, newer: dict[str, Any]) -> None:
        data = adk_json(event, newer)
        if self.layout in ("sqlite-service", "v1"):
            payload = json.dumps(data) if self.dialect == "sqlite" else psycopg.types.json.Jsonb(data)
            self.run("INSERT INTO events (id, app_name, user_id, session_id, invocation_id, timestamp, event_data)"
                     " VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (event.id, "shop", user, session_id, event.invocation_id, self.event_time(event.timestamp), payload))
            return
        blob = adk_pickle(data.get("actions") or {})
        self.run(
            "INSERT INTO events (id, app_name, user_id, session_id, invocation_id, author, actions, branch, timestamp,"
            " content, usage_metadata, citation_metadata, partial, turn_complete)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (event.id, "shop", user, session_id, event.invocation_id, event.author, blob, None,
             self.event_time(event.timestamp), self.js(data.get("content")), self.js(data.get("usage_metadata")),
             self.js(data.get("citation_metadata")), None, None),
        )

    def add_states(self) -> None:
        now = self.session_time(T0 + 200)
        self.run("INSERT INTO app_states (app_name, state, update_time) VALUES (?, ?, ?)", ("shop", self.js(APP_STATE), now))
        for user, state in USER_STATES.items():
            self.run("INSERT INTO user_states (app_name, user_id, state, update_time) VALUES (?, ?, ?, ?)",
                     ("shop", user, self.js(state), now))

    def close(self) -> None:
        self.db.close()


CASES = [("sqlite-service", "sqlite"), ("v1", "sqlite"), ("v1", "postgres"), ("v0", "sqlite"), ("v0", "postgres")]


@pytest.fixture(params=CASES, ids=[f"{layout}-{dialect}" for layout, dialect in CASES])
def adk_db(request, tmp_path):
    layout, dialect = request.param
    target = str(tmp_path / "adk.db") if dialect == "sqlite" else request.getfixturevalue("postgres_url")
    adk = Adk(layout, dialect, target)
    for (user, session_id), s in conversation().items():
        adk.add_session(user, session_id, s["state"], s["created"])
        for event in s["events"]:
            adk.add_event(user, session_id, event, s["newer"])
    adk.add_states()
    yield adk
    adk.close()


def test_import_keeps_ids_authors_timestamps_and_state(adk_db, tmp_path):
    store = f"sqlite:///{tmp_path}/chronicle.db"
    report = cli_json("import-adk", adk_db.target, store=store)
    expected_layout = {"sqlite-service": "SqliteSessionService", "v1": "schema v1", "v0": "schema v0"}[adk_db.layout]
    assert expected_layout in report["layout"]
    assert (report["sessions_found"], report["sessions_created"], report["events_imported"]) == (2, 2, 8)
    assert report["reconciled"] == 1 and report["skipped"] == []
    assert report["fields_kept"] == (0 if adk_db.layout == "v0" else 1)

    assert {(r["user_id"], r["session_id"]) for r in cli_json("sessions", store=store)} == {("ann", "s1"), ("bob", "s2")}
    session = json.loads(cli("export", "s1", "-f", "adk", store=store).stdout)
    recorded = conversation()[("ann", "s1")]["events"]
    imported = [e for e in session["events"] if e["author"] != "chronicle-import"]
    assert [e["id"] for e in imported] == [e.id for e in recorded]
    assert [e["author"] for e in imported] == [e.author for e in recorded]
    assert [e["invocationId"] for e in imported] == [e.invocation_id for e in recorded]
    assert [e["timestamp"] for e in imported] == pytest.approx([e.timestamp for e in recorded], abs=1e-6)
    assert imported[1]["content"]["parts"][0]["functionCall"]["args"] == {"item": "lamp"}
    assert imported[1]["usageMetadata"]["totalTokenCount"] == 15
    assert imported[2]["actions"]["artifactDelta"] == {"receipt.txt": 0}
    assert imported[5]["citationMetadata"]["citations"][0]["uri"].endswith("lamps")
    if adk_db.layout != "v0":
        assert imported[5]["interactionId"] == "int-7" and imported[5]["isolationScope"] == "call-1"
        assert imported[5]["nodeInfo"] == {"path": "shop/answer@1", "outputFor": ["shop"]}
        assert imported[5]["output"] == {"reply": "welcome"}
        assert imported[5]["customMetadata"] == {"adk_fields": {"from_adk_3": {"x": 1}}}
    # The state ADK showed: the session's own keys, app: and user: keys (visits came from outside any event).
    assert session["state"] == {"cart": ["lamp"], "note": "vip", "app:currency": "EUR", "app:promo": "spring",
                                "user:name": "Ann", "user:visits": 2}
    history = cli("history", "s1", store=store).stdout
    assert "add_to_cart(item=\"lamp\")" in history and "chronicle-import" in history
    assert "every chain holds" in cli("verify", store=store).stdout

    # Idempotent: nothing new the second time.
    again = cli_json("import-adk", adk_db.target, store=store)
    assert (again["events_imported"], again["sessions_created"], again["reconciled"]) == (0, 0, 0)
    assert again["sessions_unchanged"] == 2 and again["events_present"] == 8

    # The ADK database grows: only the new event comes over.
    later = Event(id="b3", invocation_id="j2", author="user", timestamp=T0 + 300, content=text("user", "bye"))
    adk_db.add_event("bob", "s2", later, {})
    third = cli_json("import-adk", adk_db.target, store=store)
    assert (third["events_imported"], third["sessions_extended"]) == (1, 1)
    assert cli_json("history", "s2", store=store)["timeline"]["events"] == 3


def test_import_into_postgres_and_dry_run(tmp_path, postgres_url):
    source = tmp_path / "adk.db"
    adk = Adk("sqlite-service", "sqlite", str(source))
    for (user, session_id), s in conversation().items():
        adk.add_session(user, session_id, s["state"], s["created"])
        for event in s["events"]:
            adk.add_event(user, session_id, event, s["newer"])
    adk.add_states()
    adk.close()
    dry = cli("import-adk", f"sqlite:///{source}", "--dry-run", store=postgres_url).stdout
    assert "would import 8 events: 2 new sessions" in dry
    assert cli_json("sessions", store=postgres_url) == []
    done = cli("import-adk", str(source), "--app", "shop", store=postgres_url).stdout
    assert "imported 8 events: 2 new sessions" in done
    assert cli_json("state-at", "s1", store=postgres_url)["user_state"] == {"user:name": "Ann", "user:visits": 2}
    assert "every chain holds" in cli("verify", store=postgres_url).stdout


def test_import_errors_are_clear(tmp_path):
    missing = cli("import-adk", str(tmp_path / "nope.db"), store=f"sqlite:///{tmp_path}/c.db", expect=3)
    assert "does not exist" in missing.stderr
    with closing(sqlite3.connect(tmp_path / "other.db")) as db:
        db.execute("CREATE TABLE things (x)")
    other = cli("import-adk", str(tmp_path / "other.db"), store=f"sqlite:///{tmp_path}/c.db", expect=1)
    assert "not a google-adk session database" in other.stderr


def test_pickled_actions_are_read_without_running_code():
    from runtime.operations.adk_source import unpickle_actions

    data = adk_pickle({"state_delta": {"k": 1}, "escalate": True})
    assert unpickle_actions(data)["state_delta"] == {"k": 1}

    class Evil:
        def __reduce__(self):
            import os

            return (os.system, ("echo owned",))

    with pytest.raises(Exception, match="os.system|posix.system"):
        unpickle_actions(pickle.dumps(Evil()))
