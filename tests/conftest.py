"""Fixtures shared by the suite: stores of every kind, and a real PostgreSQL server.

The suite starts its own PostgreSQL. Set CHRONICLE_REQUIRE_POSTGRES=1 (CI does) to make
a server that cannot start a failure rather than a skip.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
from typing import Iterator

import pytest

from runtime.sessions import session_service_from_url
from runtime.stores import open_store
from tests.adk_env import adk_python_or_skip
from tests.store_helpers import STORE_KINDS, fresh_store_url
from tools.pg_server import PostgresUnavailable, start_postgres

# The bridge for stock google-adk (tests/adk_bridge) runs where google-adk is installed: CI's
# second environment (.ci/run runs it there, and .ci/check_report.py fails CI if it did not).
# google-adk pins google-genai below 3, so the main environment does not collect it.
collect_ignore = [] if importlib.util.find_spec("google.adk") else ["adk_bridge"]
_db_numbers = itertools.count()


@pytest.fixture(scope="session")
def pg_server():
    try:
        server = start_postgres(fsync=False)  # throwaway data: no test needs it to survive a power cut
    except PostgresUnavailable as e:
        if os.environ.get("CHRONICLE_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PostgreSQL is required but could not start: {e}")
        pytest.skip(f"PostgreSQL not available: {e}")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def pg_template(pg_server) -> str:
    """A database holding Chronicle's schema and nothing else, made once: each test's database is
    a copy of it (half the cost of creating the schema again in an empty one)."""
    name = f"chronicle_template_{os.getpid()}"
    open_store(pg_server.create_database(name)).close()
    return name


@pytest.fixture
def postgres_url(pg_server, pg_template) -> Iterator[str]:
    """A fresh database on the suite's server, with Chronicle's schema and no data; dropped after
    the test (a thousand copies left behind were gigabytes on disk, and minutes to remove at the end)."""
    name = f"test_{os.getpid()}_{next(_db_numbers)}"
    yield pg_server.create_database(name, template=pg_template)
    with contextlib.suppress(Exception):  # a server that a test stopped, or already gone
        pg_server.drop_database(name)


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path}/chronicle.db"


@pytest.fixture(params=STORE_KINDS)
def store_url(request, tmp_path) -> str:
    """The URL of a fresh store of each kind; tests using it run once per store."""
    return fresh_store_url(request, request.param, tmp_path)


@pytest.fixture
async def service(store_url):
    """A session service on a fresh store of each kind (closed after the test)."""
    svc = session_service_from_url(store_url)
    yield svc
    await svc.close()


@pytest.fixture
async def sessions(request, store_url):
    """A session service on a fresh store of each kind with the test module's session made: the one its
    ``APP``, ``USER`` and ``SESSION`` name, with its ``INITIAL_STATE`` if it has one."""
    module = request.module
    svc = session_service_from_url(store_url)
    await svc.create_session(app_name=module.APP, user_id=module.USER, session_id=module.SESSION,
                             state=getattr(module, "INITIAL_STATE", None))
    yield svc
    await svc.close()


# Whole files left out of the quick subset: google-adk's environment side by side (parity, the
# workflow bench, ADK's agent config, MCP toolset auth), the browser, processes killed mid-run and
# resumed by others.
SLOW_FILES = {
    "test_adk_parity.py", "test_bench_workflow.py", "test_agent_config_workflow.py", "test_viewer.py",
    "test_workflow_resume.py", "test_resume_crash.py", "test_hitl_crash.py", "test_mcp_toolset_auth.py",
}


def pytest_collection_modifyitems(items):
    """Marks what runs on the suite's PostgreSQL server ``postgres``; marks it, the SLOW_FILES and the
    tests marked so one by one ``slow``. The quick subset, ``pytest -m "not slow"``, is the rest
    (docs/testing.md)."""
    for item in items:
        params = getattr(item, "callspec", None)
        values = [] if params is None else [
            part for value in params.params.values() for part in (value if isinstance(value, tuple) else (value,))
        ]
        if "pg_server" in item.fixturenames or "postgres" in values:
            item.add_marker(pytest.mark.postgres)
        if item.get_closest_marker("postgres") is not None or item.path.name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)


def pytest_generate_tests(metafunc):
    if "shared_store_url" in metafunc.fixturenames:
        metafunc.parametrize("shared_store_kind", ["sqlite", "postgres"])


@pytest.fixture
def shared_store_url(request, shared_store_kind, tmp_path) -> str:
    """A store that two service instances (or processes) can open at once."""
    if shared_store_kind == "sqlite":
        return f"sqlite:///{tmp_path}/shared.db"
    return request.getfixturevalue("postgres_url")


@pytest.fixture(scope="session")
def adk_python() -> str:
    """google-adk 2.13's interpreter (tests/adk_env.py)."""
    return adk_python_or_skip()
