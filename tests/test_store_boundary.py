"""Only the store packages (runtime/stores/<backend>/) name a backend or a library's internals: nothing in
domain, projections, runtime or tools does (the domain's codec and the named exceptions below aside)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STORES = ROOT / "runtime" / "stores"
BACKENDS = [STORES / name for name in ("memory", "sqlite", "postgres")]
# The domain's models build pydantic objects without validation (guarded in test_library_internals).
DOMAIN_CODEC = {ROOT / "domain" / name for name in ("events.py", "json_content.py", "session.py")}
# `chronicle import-adk` reads google-adk's own database (SQLite or PostgreSQL), not a Chronicle store.
ADK_DATABASE_READER = ROOT / "runtime" / "operations" / "adk_source.py"
# Outside the runtime, two modules use a driver on purpose, never on a Chronicle store: the floors
# of `chronicle bench sessions` (bare SQL through each driver, beside Chronicle's appends, to
# measure what Chronicle adds) and the throwaway PostgreSQL server the suite and the benchmarks
# start (it asks the driver whether the server is up).
DRIVER_USERS = {ROOT / "tools" / "bench" / "sessions.py", ROOT / "tools" / "pg_server.py"}

BACKEND_MODULES = re.compile(r"^(sqlite3|psycopg|psycopg_pool|eventsourcing\.(sqlite|postgres|popo))(\.|$)")
BACKEND_PACKAGES = re.compile(r"^runtime\.stores\.(memory|sqlite|postgres)(\.|$)")
LIBRARY_INTERNALS = re.compile(
    r"\b(_insert_events|_take_snapshots|_get_ready_connection|_database_lock|_stored_events(_index)?|_pending_events"
    r"|_create_connection|_sqlite_conn|__pydantic_private__|__pydantic_fields_set__)\b"
)


def _sources(*tops: str) -> list[Path]:
    return [
        p for top in tops for p in (ROOT / top).rglob("*.py")
        if STORES not in p.parents and p != ADK_DATABASE_READER and p not in DRIVER_USERS
    ]


def _backend_classes() -> set[str]:
    names = set()
    for package in BACKENDS:
        for path in package.glob("*.py"):
            names |= {n.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.ClassDef)}
    return names


def _imports(tree: ast.AST) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
    return out


def test_no_module_above_the_stores_imports_a_backend():
    offenders = {
        str(path.relative_to(ROOT)): module
        for path in _sources("domain", "projections", "runtime", "tools")
        for module in _imports(ast.parse(path.read_text()))
        if BACKEND_MODULES.match(module) or BACKEND_PACKAGES.match(module)
    }
    assert offenders == {}


# The stores are the bottom of the runtime: they import the domain and projections (the layers below
# the runtime), libraries and each other, never another runtime package or the tools (counting imports
# made for annotations only, or inside a function).
STORES_MAY_IMPORT_FROM_THE_RUNTIME = re.compile(r"^runtime\.stores(\.|$)")


def _absolute_imports(path: Path) -> list[str]:
    """The modules a file imports, its relative imports (``from ..x import y``) made absolute."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    tree = ast.parse(path.read_text())
    relative = [
        ".".join([*package[: len(package) - node.level + 1], *([node.module] if node.module else [])])
        for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level
    ]
    return _imports(tree) + relative


def test_the_stores_import_nothing_from_above_them():
    offenders = {
        f"{path.relative_to(ROOT)}: {module}"
        for path in STORES.rglob("*.py")
        for module in _absolute_imports(path)
        if module.split(".")[0] in ("runtime", "tools") and not STORES_MAY_IMPORT_FROM_THE_RUNTIME.match(module)
    }
    assert offenders == set()


def test_no_module_above_the_stores_names_a_backend_class_or_a_library_internal():
    classes = _backend_classes()
    assert {"MemoryStore", "SqliteStore", "PostgresStore"} <= classes
    offenders = []
    for path in _sources("domain", "projections", "runtime", "tools"):
        text = path.read_text()
        named = {c for c in classes if re.search(rf"\b{c}\b", text)}
        if path not in DOMAIN_CODEC:
            named |= set(m.group(0) for m in LIBRARY_INTERNALS.finditer(text))
        if named:
            offenders.append((str(path.relative_to(ROOT)), sorted(named)))
    assert offenders == []


def test_nothing_branches_on_which_backend_it_runs_on():
    pattern = re.compile(r"isinstance\([^)]*(POPO|SQLite|Sqlite|Postgres)|__module__[^\n]*(?i:popo|sqlite|postgres)")
    offenders = [
        str(p.relative_to(ROOT)) for p in _sources("domain", "projections", "runtime", "tools")
        if pattern.search(p.read_text())
    ]
    assert offenders == []


# google-adk is an optional extra (chronicle[adk]): only the bridge imports it, and what runs ADK
# itself beside Chronicle (the parity check, the ADK benchmark, ADK's conformance client) in an
# environment of its own.
ADK_USERS = [ROOT / "runtime" / "adk_bridge", ROOT / "tools" / "parity", ROOT / "tools" / "bench",
             ROOT / "tools" / "conformance"]


def test_only_the_bridge_imports_google_adk():
    offenders = {}
    for top in ("domain", "projections", "runtime", "tools"):
        for path in (ROOT / top).rglob("*.py"):
            if any(user in path.parents for user in ADK_USERS):
                continue
            tree = ast.parse(path.read_text())
            adk = [m for m in _imports(tree) if m == "google.adk" or m.startswith("google.adk.")]
            adk += ["google.adk" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                    and node.module == "google" and any(a.name == "adk" for a in node.names)]
            if adk:
                offenders[str(path.relative_to(ROOT))] = adk
    assert offenders == {}


# Stored rows are read through runtime/log_reader.py (LogReader), never through a store's recorder:
# `.recorder` appears only in runtime/stores/ and the reader (the session service's loads and appends
# included). Each entry of NOT_YET_MOVED is a module a later session moves (onto LogReader, or into
# runtime/stores/ for writes), with what it still does; once moved, its entry goes, and the test fails
# while a stale entry stays.
READER = ROOT / "runtime" / "log_reader.py"
RECORDER = re.compile(r"\._?recorder\b")  # a store's recorder, or one kept privately (`self._recorder`)
NOT_YET_MOVED: dict[str, str] = {}


def test_only_the_stores_and_the_log_reader_touch_a_recorder():
    found = {
        str(path.relative_to(ROOT))
        for top in ("domain", "projections", "runtime", "tools")
        for path in (ROOT / top).rglob("*.py")
        if STORES not in path.parents and path != READER and RECORDER.search(path.read_text())
    }
    assert found - set(NOT_YET_MOVED) == set(), "read through runtime.log_reader.LogReader"
    assert set(NOT_YET_MOVED) <= found, "moved: take it off NOT_YET_MOVED"


# SQL against Chronicle's own tables is written only under runtime/stores/ (purge's statements included:
# runtime/stores/purge_sql.py). import-adk's reader of google-adk's database and the benches' bare-driver
# floors (`_sources` leaves them out) query tables of their own.
CHRONICLE_SQL = re.compile(r"\b(FROM|INTO|UPDATE|JOIN|TABLE|EXISTS)\s+chronicle_\w+")


def test_no_sql_against_chronicle_tables_outside_the_stores():
    offenders = [
        str(path.relative_to(ROOT)) for path in _sources("domain", "projections", "runtime", "tools")
        if CHRONICLE_SQL.search(path.read_text())
    ]
    assert offenders == []


# The session service and its collaborators (its logs, its rewinds) meet through public methods with
# keyword arguments: no module of runtime/sessions/ reads another object's private members or imports
# another module's private names.
SESSIONS = ROOT / "runtime" / "sessions"


def _private_reaches(tree: ast.AST) -> list[str]:
    def private(name: str) -> bool:
        return name.startswith("_") and not name.startswith("__")

    reaches = [
        ast.unparse(node) for node in ast.walk(tree) if isinstance(node, ast.Attribute) and private(node.attr)
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]
    return reaches + [
        f"import {a.name}" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
        for a in node.names if private(a.name)
    ]


def test_the_session_modules_reach_into_nothing_private():
    offenders = {
        str(path.relative_to(ROOT)): reaches for path in SESSIONS.glob("*.py")
        if (reaches := _private_reaches(ast.parse(path.read_text())))
    }
    assert offenders == {}
