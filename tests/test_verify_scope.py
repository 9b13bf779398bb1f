"""Verifying one session, one user or one app reads that scope's data only: its logs are found by
their derived ids from the catalog's rows of the scope (never by reading every genesis), and the
app:/user: rows are compared with a fold of the scope's own session logs (never the whole log).
It checks the same logs the whole store's verify checks for that scope."""

from __future__ import annotations

import asyncio

import pytest

from runtime.log_reader import LogReader
from runtime.operations.audit import audit, logs_to_check
from runtime.read_models.source import LogSource
from runtime.stores import open_store
from tools.demo import run_demo

PEOPLE = [("demo", "ann", "a1"), ("demo", "ann", "a2"), ("demo", "bob", "b1"), ("other", "ann", "o1")]


@pytest.fixture
def store(store_url):
    store = open_store(store_url)
    for app, user, session_id in PEOPLE:
        asyncio.run(run_demo(store, app_name=app, user_id=user, session_id=session_id))
    yield store
    store.close()


def _whole_log_reads_fail(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("a scoped verify read the whole store's log")

    monkeypatch.setattr(LogReader, "notifications", boom)
    monkeypatch.setattr(LogSource, "read", boom)


@pytest.mark.parametrize("scope", [
    {"app_name": "demo"}, {"app_name": "demo", "user_id": "ann"}, {"user_id": "ann"},
    {"app_name": "demo", "user_id": "ann", "session_id": "a2"}, {"session_id": "b1"},
])
def test_a_scope_checks_the_logs_the_whole_store_holds_for_it_and_reads_nothing_else(store, scope, monkeypatch):
    def within(log) -> bool:
        return all(getattr(log, key) == value for key, value in scope.items()) and (
            "session_id" not in scope or log.kind != "memory")

    def ids(logs):
        return sorted(str(log.log_id) for log in logs)

    expected = [log for log in logs_to_check(store) if log.kind != "purges" and within(log)]
    _whole_log_reads_fail(monkeypatch)
    found = logs_to_check(store, **scope)
    assert ids(found) == ids(expected) and len(found) >= 2  # a session's log and its artifacts at least
    report = audit(store, **scope)
    assert report.ok, (report.broken, report.scoped, report.drifted)
    assert report.logs == len(expected)


def test_a_user_with_no_sessions_has_nothing_to_check(store, monkeypatch):
    _whole_log_reads_fail(monkeypatch)
    report = audit(store, app_name="demo", user_id="nobody")
    assert report.ok and report.logs == 0
