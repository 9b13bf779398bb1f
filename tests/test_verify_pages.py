"""A verify reads a store a page at a time: short logs many at a time (their rows, snapshots and
claims in one read of each, at most ``PAGE`` rows a batch), a longer log alone a window at a
time, and ``verify --since`` each touched log's tail a window at a time. With pages and windows
much smaller than the stored logs, edits are found where they are, on every store, and no read
holds more than a page."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from domain import Event, EventActions
from domain.session_log import session_log_id
from runtime.log_reader import LogReader
from runtime.operations import audit as auditing
from runtime.operations.audit import audit_since
from runtime.sessions.service import LogSessionService
from runtime.stores import open_store
from tests.test_tamper import Tampered, drifts
from tools.bench import scale

USER, SHORT, LONG = "ann", 12, 30  # twelve sessions of 7 events, one of 31
WINDOW, PAGE = 7, 20  # a batch holds two short sessions; the long one spans five windows


class Paged(Tampered):
    """Short sessions and a long one, written as ``bench scale`` writes them (with their
    claims and catalog rows), on one kind of store."""

    def __init__(self, kind: str, url: str, long: int = LONG):
        self.kind, self.url = kind, url
        self.store = open_store(url)
        for s in range(SHORT):
            scale.write_session(self.store, USER, f"s{s}", [scale._payload(i, f"s{s}") for i in range(6)])
        scale.write_session(self.store, USER, "long", [scale._payload(i, "long") for i in range(long)])
        if kind != "memory":
            self.store.close()

    def with_store(self, check: Any) -> Any:
        store = self.fresh()
        try:
            return check(store)
        finally:
            if self.kind != "memory":
                store.close()


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def url(request, tmp_path) -> tuple[str, str]:
    kind = request.param
    return kind, {"memory": "memory://", "sqlite": f"sqlite:///{tmp_path}/chronicle.db"}.get(kind) or \
        request.getfixturevalue("postgres_url")


@pytest.fixture
def paged(url, monkeypatch) -> Paged:
    monkeypatch.setattr(auditing, "WINDOW", WINDOW)
    monkeypatch.setattr(auditing, "PAGE", PAGE)
    return Paged(*url)


def _log(session_id: str) -> Any:
    return session_log_id(scale.APP, USER, session_id)


def _evil(payload: dict[str, Any]) -> None:
    payload["event"]["author"] = "mallory"


def _reads(monkeypatch, store: Any) -> tuple[list[int], dict[str, int]]:
    """Watches the store's batched reads (rows per batch) and the largest read of each log alone."""
    batches: list[int] = []
    largest: dict[str, int] = {}
    batch, single = type(store).log_batch, LogReader.stored_events

    def counted_batch(self, log_ids):
        held = batch(self, log_ids)
        batches.append(sum(len(rows) for rows in held.events.values()))
        return held

    def counted_single(self, log_id, **kwargs):
        rows = single(self, log_id, **kwargs)
        largest[str(log_id)] = max(largest.get(str(log_id), 0), len(rows))
        return rows

    monkeypatch.setattr(type(store), "log_batch", counted_batch)
    monkeypatch.setattr(LogReader, "stored_events", counted_single)
    return batches, largest


def test_short_logs_are_read_in_batches_of_at_most_a_page(paged, monkeypatch):
    def check(store):
        batches, largest = _reads(monkeypatch, store)
        return auditing.audit(store), batches, largest

    report, batches, largest = paged.with_store(check)
    assert report.ok, (report.broken, report.drifted, report.scoped)
    assert (report.logs, report.events) == (SHORT + 1, SHORT * 7 + LONG + 1)
    assert batches == [14] * (SHORT // 2)  # every short session read in a batch, two a batch
    assert largest[str(_log("long"))] == WINDOW  # the long one alone, a window at a time


@pytest.mark.parametrize("session_id, version", [("s5", 3), ("s6", 7), ("long", 7), ("long", 8), ("long", 31)])
def test_an_event_edited_is_found_where_it_is(paged, session_id, version):
    """In a short log read with others (the first or the second of its batch), or in a long one
    at either side of a window's edge or at its end."""
    edited = paged.payload("chronicle_events", _log(session_id), version)["event"]["id"]
    paged.edit_payload("chronicle_events", _log(session_id), version, _evil)
    report = paged.with_store(auditing.audit)
    (broken,) = report.broken
    assert (broken.session_id, broken.version, broken.event_id) == (session_id, version, edited)
    assert "does not match its digest" in broken.reason
    assert report.events == SHORT * 7 + LONG + 1  # every row still read


def test_a_claim_removed_from_a_batched_log_is_found(paged):
    log_id = _log("s3")
    if paged.kind == "memory":
        claims = paged.store.recorder._claims
        gone = min((k[1] for k in claims if k[0] == log_id), key=lambda event_id: claims[(log_id, event_id)])
        del claims[(log_id, gone)]
    else:
        ((gone,),) = paged.sql("SELECT event_id FROM chronicle_event_ids WHERE log_id = %s ORDER BY version LIMIT 1",
                               (paged.raw_id(log_id),))
        paged.sql("DELETE FROM chronicle_event_ids WHERE log_id = %s AND event_id = %s", (paged.raw_id(log_id), gone))
    (found,) = drifts(paged.with_store(auditing.audit), "event-id claim")
    assert (found.log_id, found.key, found.found) == (str(log_id), gone, None) and "session s3" in found.where


def test_a_snapshot_edited_in_a_batched_log_is_found(url, monkeypatch):
    """A log of 110 events (a snapshot at 100) read in a batch with the short ones."""
    monkeypatch.setattr(auditing, "WINDOW", 120)
    monkeypatch.setattr(auditing, "PAGE", 250)
    store = Paged(*url, long=109)
    assert store.with_store(auditing.audit).ok

    def evil(payload: dict[str, Any]) -> None:
        payload["state"]["state"]["evil"] = True

    store.edit_payload("chronicle_snapshots", _log("long"), 100, evil)
    found = drifts(store.with_store(auditing.audit), "snapshot")
    assert [(d.log_id, d.version, d.key) for d in found] == [(str(_log("long")), 100, "state")]


def _append(store: Any, session_id: str, n: int) -> None:
    async def go() -> None:
        service = LogSessionService(store)
        session = await service.get_session(app_name=scale.APP, user_id=USER, session_id=session_id)
        for i in range(n):
            await service.append_event(session, Event(author="user", invocation_id=f"new-{i}",
                                                      actions=EventActions(state_delta={"n": i})))

    asyncio.run(go())


def test_since_reads_each_tail_a_window_at_a_time(paged, monkeypatch):
    position = paged.with_store(lambda store: audit_since(store, 0).position)
    paged.with_store(lambda store: (_append(store, "long", 20), _append(store, "s2", 1)))

    def check(store):
        _, largest = _reads(monkeypatch, store)
        return audit_since(store, position), largest

    report, largest = paged.with_store(check)
    assert report.ok and (report.logs, report.events) == (2, 21)
    assert largest[str(_log("long"))] == WINDOW  # the tail of 20, a window at a time
    paged.edit_payload("chronicle_events", _log("long"), LONG + 1 + 16, _evil)  # in the tail's third window
    report = paged.with_store(lambda store: audit_since(store, position))
    (broken,) = report.broken
    assert (broken.session_id, broken.version) == ("long", LONG + 1 + 16) and report.events == 21
    assert "does not match its digest" in broken.reason
