"""Fixtures shared by the suite: stores of every kind, and a real PostgreSQL server.

The suite starts its own PostgreSQL. Set CHRONICLE_REQUIRE_POSTGRES=1 (CI does) to make
a server that cannot start a failure rather than a skip.
"""

from __future__ import annotations

import importlib.util
import itertools
import os

import pytest

from tools.pg_server import PostgresUnavailable, start_postgres

# The human-in-the-loop tests' `sessions` fixture (a service per store with their session made).
pytest_plugins = ["tests.hitl_helpers"]

STORE_KINDS = ["memory", "sqlite", "postgres"]

# The bridge for stock google-adk (tests/adk_bridge) runs where google-adk is installed: CI's
# second environment (.ci/run runs it there, and .ci/check_report.py fails CI if it did not).
# google-adk pins google-genai below 3, so the main environment does not collect it.
collect_ignore = [] if importlib.util.find_spec("google.adk") else ["adk_bridge"]
_db_numbers = itertools.count()


@pytest.fixture(scope="session")
def pg_server():
    try:
        server = start_postgres()
    except PostgresUnavailable as e:
        if os.environ.get("CHRONICLE_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PostgreSQL is required but could not start: {e}")
        pytest.skip(f"PostgreSQL not available: {e}")
    yield server
    server.stop()


@pytest.fixture
def postgres_url(pg_server) -> str:
    """A fresh, empty database on the suite's server."""
    return pg_server.create_database(f"test_{os.getpid()}_{next(_db_numbers)}")


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path}/chronicle.db"


@pytest.fixture(params=STORE_KINDS)
def store_url(request, tmp_path) -> str:
    """The URL of a fresh store of each kind; tests using it run once per store."""
    if request.param == "memory":
        return "memory://"
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/chronicle.db"
    return request.getfixturevalue("postgres_url")


def pytest_generate_tests(metafunc):
    if "shared_store_url" in metafunc.fixturenames:
        metafunc.parametrize("shared_store_kind", ["sqlite", "postgres"])


@pytest.fixture
def shared_store_url(request, shared_store_kind, tmp_path) -> str:
    """A store that two service instances (or processes) can open at once."""
    if shared_store_kind == "sqlite":
        return f"sqlite:///{tmp_path}/shared.db"
    return request.getfixturevalue("postgres_url")
