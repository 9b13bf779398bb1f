"""Reading a google-adk session database: its sessions, events and app/user state, in ADK's layouts.

Three layouts are read, on SQLite files and on PostgreSQL:

* ``DatabaseSessionService``, schema v1 (google-adk 1.22 and later): ``events.event_data`` holds
  the whole event as JSON (TEXT on SQLite, JSONB on PostgreSQL); an ``adk_internal_metadata``
  table says ``schema_version = 1``.
* ``DatabaseSessionService``, schema v0 (google-adk before 1.22, back to the 0.x releases): one
  column per event field (``author``, ``content`` JSON, ``usage_metadata`` JSON, …) and
  ``actions``, an ``EventActions`` pickled by SQLAlchemy's PickleType. The pickle is read by a
  restricted unpickler that rebuilds only plain data (google-adk need not be installed, and no
  code in the pickle runs); columns a version lacks are simply absent.
* ``SqliteSessionService`` (the aiosqlite service of recent google-adk releases): like v1, but
  times are REAL seconds and there is no metadata table.

In every layout the ``sessions`` table holds each session's own state (no ``app:``/``user:``
keys) and ``app_states`` / ``user_states`` hold the shared scopes *without* their prefix.

Times: an event's own ``timestamp`` (in ``event_data``) is used when present; datetime columns
without a zone are read as ADK reads them — event times as local time (ADK wrote them with
``datetime.fromtimestamp``), session times as UTC (the database's ``now()``).
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import os
import pickle
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from domain.errors import InvalidArgumentError, StoreError

SQLITE_SERVICE = "SqliteSessionService"
DATABASE_V1 = "DatabaseSessionService (schema v1, JSON events)"
DATABASE_V0 = "DatabaseSessionService (schema v0, pickled actions)"

# Event columns of schema v0 that hold JSON, and those copied as they are.
_V0_JSON = ("content", "grounding_metadata", "custom_metadata", "usage_metadata", "citation_metadata",
            "input_transcription", "output_transcription")
_V0_PLAIN = ("branch", "partial", "turn_complete", "error_code", "error_message", "interrupted")


@dataclass
class AdkSession:
    app_name: str
    user_id: str
    session_id: str
    state: dict[str, Any]
    create_time: float
    update_time: float


@dataclass
class AdkSource:
    """An open ADK database: its layout and how to read it."""

    url: str
    layout: str
    db: Any
    kind: str  # "sqlite" or "postgres"
    notes: list[str] = field(default_factory=list)

    def close(self) -> None:
        self.db.close()

    # -- reading -----------------------------------------------------------------------

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        if self.kind == "sqlite":
            cursor = self.db.execute(sql, params)
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row)) for row in cursor.fetchall()]
        with self.db.cursor() as cursor:
            cursor.execute(sql.replace("?", "%s"), params)
            return list(cursor.fetchall())

    def sessions(self, app_name: Optional[str] = None) -> list[AdkSession]:
        sql = "SELECT app_name, user_id, id, state, create_time, update_time FROM sessions"
        params: tuple[Any, ...] = ()
        if app_name is not None:
            sql, params = sql + " WHERE app_name = ?", (app_name,)
        out = []
        for r in self._rows(sql + " ORDER BY create_time, app_name, user_id, id", params):
            out.append(AdkSession(r["app_name"], r["user_id"], r["id"], _json(r["state"]) or {},
                                  _time(r["create_time"], naive="utc"), _time(r["update_time"], naive="utc")))
        return out

    def events(self, session: AdkSession) -> list[dict[str, Any]]:
        """The session's events as ADK event dicts (snake_case), oldest first."""
        order = "timestamp, rowid" if self.kind == "sqlite" else "timestamp, id"
        rows = self._rows(
            f"SELECT * FROM events WHERE app_name = ? AND user_id = ? AND session_id = ? ORDER BY {order}",
            (session.app_name, session.user_id, session.session_id),
        )
        convert = self._v0_event if self.layout == DATABASE_V0 else self._json_event
        return [convert(r) for r in rows]

    def app_state(self, app_name: str) -> dict[str, Any]:
        rows = self._rows("SELECT state FROM app_states WHERE app_name = ?", (app_name,)) if self._has("app_states") else []
        return {f"app:{k}": v for k, v in (_json(rows[0]["state"]) if rows else {}).items()}

    def user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        rows = self._rows("SELECT state FROM user_states WHERE app_name = ? AND user_id = ?",
                          (app_name, user_id)) if self._has("user_states") else []
        return {f"user:{k}": v for k, v in (_json(rows[0]["state"]) if rows else {}).items()}

    def _has(self, table: str) -> bool:
        return table in _tables(self.db, self.kind)

    @staticmethod
    def _json_event(row: dict[str, Any]) -> dict[str, Any]:
        event = dict(_json(row["event_data"]) or {})
        event["id"] = row["id"]
        event["invocation_id"] = row.get("invocation_id") or event.get("invocation_id") or ""
        if event.get("timestamp") is None:
            event["timestamp"] = _time(row["timestamp"], naive="local")
        return event

    @staticmethod
    def _v0_event(row: dict[str, Any]) -> dict[str, Any]:
        event: dict[str, Any] = {
            "id": row["id"],
            "invocation_id": row.get("invocation_id") or "",
            "author": row.get("author") or "",
            "timestamp": _time(row["timestamp"], naive="local"),
        }
        for name in _V0_JSON:
            value = _json(row.get(name))
            if value is not None:
                event[name] = value
        for name in _V0_PLAIN:
            if row.get(name) is not None:
                event[name] = bool(row[name]) if name in ("partial", "turn_complete", "interrupted") else row[name]
        ids = row.get("long_running_tool_ids_json")
        if ids:
            event["long_running_tool_ids"] = json.loads(ids)
        if row.get("actions") is not None:
            event["actions"] = unpickle_actions(bytes(row["actions"]))
        return event


def open_source(url_or_path: str) -> AdkSource:
    """Opens an ADK database (a SQLite file, ``sqlite:///path`` or ``postgresql://…``), read-only,
    and finds its layout."""
    if url_or_path.startswith(("postgresql:", "postgres:", "postgresql+")):
        db, kind = _open_postgres(url_or_path), "postgres"
    else:
        db, kind = _open_sqlite(url_or_path), "sqlite"
    try:
        layout = _layout(db, kind, url_or_path)
    except BaseException as e:
        db.close()
        if isinstance(e, Exception) and not isinstance(e, (InvalidArgumentError, StoreError)):
            # Not a database at all (``import-adk /etc/passwd``), or one the driver cannot read.
            raise StoreError(
                f"Cannot read {url_or_path!r} as a google-adk session database: {' '.join(str(e).split())}"
            ) from None
        raise
    return AdkSource(url_or_path, layout, db, kind)


def _open_sqlite(url_or_path: str) -> sqlite3.Connection:
    path = url_or_path
    for prefix in ("sqlite+aiosqlite:///", "sqlite:///"):
        if path.startswith(prefix):
            path = path[len(prefix):]
    if not os.path.exists(path):
        raise StoreError(f"No ADK database at {path!r}: the file does not exist.")
    try:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise StoreError(f"Cannot open the ADK database {path!r}: {e}") from None


def _open_postgres(url: str) -> Any:
    import psycopg
    from psycopg.rows import dict_row

    from runtime.stores.postgres import parse_postgres_url

    scheme, rest = url.split("://", 1)
    params = parse_postgres_url("postgresql://" + rest)  # postgresql+asyncpg:// and the like too
    try:
        db = psycopg.connect(**params, row_factory=dict_row, connect_timeout=10)
    except psycopg.Error as e:
        raise StoreError(f"Cannot open the ADK database: {' '.join(str(e).split())}") from None
    db.read_only = True
    return db


def _tables(db: Any, kind: str) -> set[str]:
    if kind == "sqlite":
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    with db.cursor() as c:
        c.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
        return {r["table_name"] for r in c.fetchall()}


def _columns(db: Any, kind: str, table: str) -> set[str]:
    if kind == "sqlite":
        return {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
    with db.cursor() as c:
        c.execute("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
                  " AND table_name = %s", (table,))
        return {r["column_name"] for r in c.fetchall()}


def _layout(db: Any, kind: str, url: str) -> str:
    tables = _tables(db, kind)
    if not {"sessions", "events"} <= tables:
        raise InvalidArgumentError(
            f"{url!r} is not a google-adk session database: it has no sessions and events tables "
            f"(tables: {', '.join(sorted(tables)) or 'none'})."
        )
    columns = _columns(db, kind, "events")
    if "event_data" in columns:
        return DATABASE_V1 if "adk_internal_metadata" in tables else SQLITE_SERVICE
    if {"actions", "author"} <= columns:
        return DATABASE_V0
    raise InvalidArgumentError(
        f"{url!r} has an events table Chronicle does not know (columns: {', '.join(sorted(columns))}); "
        "supported: DatabaseSessionService schema v0 and v1, and SqliteSessionService."
    )


# -- values ------------------------------------------------------------------------------


def _json(value: Any) -> Any:
    if value is None or isinstance(value, (dict, list)):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        value = bytes(value).decode()
    return json.loads(value)


def _time(value: Any, *, naive: str) -> float:
    """Seconds since the epoch from REAL seconds or a datetime (or its SQLite text)."""
    if value is None:
        return 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            value = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None and naive == "utc":
            value = value.replace(tzinfo=_dt.timezone.utc)
        return value.timestamp()  # a naive one: local time, as ADK reads event times
    raise InvalidArgumentError(f"Cannot read the time {value!r}")


# -- pickled EventActions (schema v0) -----------------------------------------------------


class _Stub:
    """Stands in for a class of the pickle (an ADK or google-genai model): keeps its data only."""

    _qualname = "?"

    def __init__(self, *args: Any, **kwargs: Any):
        self.args, self.kwargs, self.state = args, kwargs, None

    def __setstate__(self, state: Any) -> None:
        self.state = state


_SAFE_GLOBALS = {
    ("builtins", n) for n in ("dict", "list", "set", "frozenset", "tuple", "bytes", "bytearray", "int", "float",
                              "str", "bool", "complex", "object")
} | {("collections", "OrderedDict"), ("copyreg", "_reconstructor"), ("copy_reg", "_reconstructor"),
     ("_codecs", "encode")} | {("datetime", n) for n in ("datetime", "date", "time", "timedelta", "timezone")}
_STUBBED_PREFIXES = ("google.adk.", "google.genai.", "pydantic.", "pydantic_core.", "enum")


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _SAFE_GLOBALS:
            return super().find_class(module, name)
        if module.startswith(_STUBBED_PREFIXES):
            return type(name, (_Stub,), {"_qualname": f"{module}.{name}"})
        raise pickle.UnpicklingError(f"the pickle names {module}.{name}, which an ADK EventActions never holds")


def unpickle_actions(data: bytes) -> dict[str, Any]:
    """An ``EventActions`` pickled by google-adk, as a plain dict (no ADK code needed or run)."""
    try:
        value = _Unpickler(io.BytesIO(data)).load()
    except Exception as e:  # noqa: BLE001 - a damaged or foreign pickle: say which
        raise InvalidArgumentError(f"Cannot read a pickled EventActions: {e}") from None
    plain = _plain(value)
    if not isinstance(plain, dict):
        raise InvalidArgumentError(f"A pickled EventActions holds a {type(plain).__name__}, not its fields.")
    return plain


def _plain(value: Any) -> Any:
    if isinstance(value, _Stub):
        state = value.state
        if isinstance(state, dict) and "__dict__" in state:  # a pydantic model
            return _plain({**(state.get("__pydantic_extra__") or {}), **state["__dict__"]})
        if isinstance(state, tuple) and len(state) == 2 and isinstance(state[1], dict):
            return _plain({**(state[0] or {}), **state[1]})
        if state is not None:
            return _plain(state)
        if len(value.args) == 1:  # an enum member, rebuilt from its value
            return _plain(value.args[0])
        return _plain(value.kwargs) if value.kwargs else None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    if isinstance(value, (bytes, bytearray)):
        import base64

        return base64.b64encode(bytes(value)).decode()
    return value


def iter_sessions(source: AdkSource, app_name: Optional[str] = None) -> Iterator[tuple[AdkSession, list[dict[str, Any]]]]:
    for session in source.sessions(app_name):
        yield session, source.events(session)
