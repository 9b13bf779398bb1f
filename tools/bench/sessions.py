"""`chronicle bench sessions`: the session services' figures (issue 2's workload).

One session, 2,000 events of ~240 characters with a 2-key state delta and a `user:` key
every 10th event; loads of all events and of the newest 20 at 2,000 and 20,000 events;
the last 100 of 10,000 appends against the first 100; 16 concurrent writers and two
writers on one session (PostgreSQL); list_sessions over 10,000 sessions. Beside SQLite's
and PostgreSQL's appends, the same rows written by bare SQL through one thread: the
floor, and Chronicle's share of it. Each figure is the median of several runs.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import sqlite3
import time
import uuid
from typing import Callable

import psycopg
from google.genai import types
from pydantic_core import to_json

from domain import Event, EventActions, StaleSessionError
from domain.session_log import session_log_id
from runtime.log_reader import LogReader
from runtime.sessions import GetSessionConfig, session_service_from_url
from runtime.sessions.service import decode_events
from runtime.stores.io_threads import IoThreads
from runtime.stores.sqlite import sqlite_path
from tools.bench.common import Stopwatch, Table, bench_stores, median

TEXT = ("The quick brown fox jumps over the lazy dog while the agent keeps its log. " * 4)[:240]
KINDS = ["memory", "sqlite", "postgresql"]


def workload_event(i: int, event_class: type = Event, actions_class: type = EventActions):
    """The i-th event of the workload; ``bench adk`` builds the same events from ADK's classes."""
    delta = {"turn": i, "last_author": "model" if i % 2 else "user"}
    if i % 10 == 0:
        delta["user:turns_seen"] = i
    return event_class(
        author="model" if i % 2 else "user",
        invocation_id=f"e-{i // 2}",
        content=types.Content(role="model" if i % 2 else "user", parts=[types.Part(text=TEXT)]),
        actions=actions_class(state_delta=delta),
    )


async def timed_appends(svc, session, events: list) -> list[float]:
    """Appends the events in turn; returns each append's seconds."""
    each = []
    for event in events:
        t = time.perf_counter()
        await svc.append_event(session, event)
        each.append(time.perf_counter() - t)
    return each


async def _append_run(
    url: str, n: int, latencies: list[float] | None = None
) -> tuple[float, list[float], object, str]:
    """Appends n events to one new session; returns appends/s and per-100 block times, and
    puts each append's seconds in ``latencies`` when given. (tools/bench/compare.py runs
    this function on older commits too, so its signature only grows.)"""
    svc = session_service_from_url(url)
    app = f"bench_{uuid.uuid4().hex[:8]}"
    session = await svc.create_session(app_name=app, user_id="u")
    events = [workload_event(i) for i in range(n)]
    start = time.perf_counter()
    each = await timed_appends(svc, session, events)
    rate = n / (time.perf_counter() - start)
    if latencies is not None:
        latencies.extend(each)
    blocks = [sum(each[b : b + 100]) for b in range(0, n, 100)]
    return rate, blocks, svc, app + "\x00" + session.id


async def _bare_sqlite_rate(url: str, n: int) -> float:
    """The floor under a durable SQLite append here: each event's JSON and SHA-256, then the
    same three rows (event, event id, catalog) inserted and committed through one store
    thread with no session logic. Run beside Chronicle's appends, so the ratio holds even
    when the host's speed does not."""
    connection = sqlite3.connect(sqlite_path(url), isolation_level=None, check_same_thread=False)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("CREATE TABLE events (log TEXT, version INTEGER, state BLOB, PRIMARY KEY (log, version))")
    connection.execute("CREATE TABLE ids (log TEXT, event_id TEXT, version INTEGER, PRIMARY KEY (log, event_id)) WITHOUT ROWID")
    connection.execute("CREATE TABLE catalog (log TEXT PRIMARY KEY, version INTEGER, updated REAL, state TEXT)")
    connection.execute("INSERT INTO catalog VALUES ('log', 0, 0, '{}')")

    def append(version: int, event: dict) -> None:
        state = to_json({"event": event, "digest": hashlib.sha256(to_json(event)).hexdigest()})
        cursor = connection.cursor()
        cursor.execute("BEGIN")
        cursor.execute("INSERT INTO events VALUES ('log', ?, ?)", (version, state))
        cursor.execute("INSERT INTO ids VALUES ('log', ?, ?)", (event["id"], version))
        cursor.execute("UPDATE catalog SET version = ?, updated = ?, state = ? WHERE log = 'log'",
                       (version, event["timestamp"], to_json(event["actions"]["state_delta"]).decode()))
        connection.commit()

    try:
        return await _rate_through_one_thread(append, n)
    finally:
        connection.close()


async def _rate_through_one_thread(append: Callable[[int, dict], None], n: int) -> float:
    """Appends/s of ``append(version, event JSON)`` over n workload events, each encoded
    and then called through one store thread, as Chronicle's appends are."""
    threads = IoThreads(1)
    events = [workload_event(i) for i in range(n)]
    with Stopwatch() as sw:
        for version, event in enumerate(events, start=1):
            await threads.call(append, version, event.to_json_dict())
    threads.close()
    return n / sw.seconds


async def _bare_postgres_rate(url: str, n: int) -> float:
    """PostgreSQL's floor, as ``_bare_sqlite_rate`` is SQLite's: the same JSON and SHA-256,
    then the three rows written by one statement (so one round trip and one commit, as a
    Chronicle append is) through one store thread on one connection."""
    connection = psycopg.connect(url, autocommit=True)
    suffix = uuid.uuid4().hex[:8]  # a given database may be reused
    events, ids, catalog = (f"bare_{name}_{suffix}" for name in ("events", "ids", "catalog"))
    connection.execute(f"CREATE TABLE {events} (log text, version bigint, state bytea, PRIMARY KEY (log, version))")
    connection.execute(f"CREATE TABLE {ids} (log text, event_id text, version bigint, PRIMARY KEY (log, event_id))")
    connection.execute(f"CREATE TABLE {catalog} (log text PRIMARY KEY, version bigint, updated float8, state jsonb)")
    connection.execute(f"INSERT INTO {catalog} VALUES ('log', 0, 0, '{{}}')")
    sql = (
        f"WITH e AS (INSERT INTO {events} VALUES ('log', %s, %s)), i AS (INSERT INTO {ids} VALUES ('log', %s, %s))"
        f" UPDATE {catalog} SET version = %s, updated = %s, state = %s WHERE log = 'log'"
    )

    def append(version: int, event: dict) -> None:
        state = to_json({"event": event, "digest": hashlib.sha256(to_json(event)).hexdigest()})
        delta = to_json(event["actions"]["state_delta"]).decode()
        connection.execute(sql, (version, state, event["id"], version, version, event["timestamp"], delta), prepare=True)

    try:
        return await _rate_through_one_thread(append, n)
    finally:
        for table in (events, ids, catalog):
            connection.execute(f"DROP TABLE {table}")
        connection.close()


def _growth(blocks: list[float], at: int) -> float:
    """How much longer the 100 appends ending at append ``at`` took than the first 100."""
    return blocks[at // 100 - 1] / blocks[0]


async def _load_ms(svc, key: str, config: GetSessionConfig | None, runs: int = 7, warmup: int = 10) -> float:
    """Steady-state load time. The first calls on a new service cost more: PostgreSQL plans
    each prepared statement afresh for its first five runs on each pooled connection."""
    app, session_id = key.split("\x00")
    for _ in range(warmup):
        await svc.get_session(app_name=app, user_id="u", session_id=session_id, config=config)
    times = []
    for _ in range(runs):
        with Stopwatch() as sw:
            s = await svc.get_session(app_name=app, user_id="u", session_id=session_id, config=config)
        times.append(sw.seconds * 1000)
        assert s is not None
        del s  # freed here: freeing the last load's 2,000 events is no part of the next
    return median(times)


def _decode_ms(svc, key: str, runs: int = 7) -> float:
    """The floor under a full load: the same rows, read once beforehand, turned into events
    by the service's own decoder (garbage-collector pass included), on the calling thread."""
    app, session_id = key.split("\x00")
    rows = LogReader(svc.store).rows(session_log_id(app, "u", session_id))
    times = []
    for _ in range(runs):
        with Stopwatch() as sw:
            events = decode_events(rows, [])
        times.append(sw.seconds * 1000)
        del events
    return median(times)


async def _concurrent_writers(url: str, writers: int = 16, per_writer: int = 200) -> float:
    svc = session_service_from_url(url)
    app = f"bench_{uuid.uuid4().hex[:8]}"
    sessions = [await svc.create_session(app_name=app, user_id=f"u{i}") for i in range(writers)]

    async def write(session) -> None:
        for i in range(per_writer):
            await svc.append_event(session, workload_event(i))

    with Stopwatch() as sw:
        await asyncio.gather(*(write(s) for s in sessions))
    for s in sessions:  # none lost
        loaded = await svc.get_session(app_name=app, user_id=s.user_id, session_id=s.id)
        assert len(loaded.events) == per_writer, "a concurrent append was lost"
    await svc.close()
    return writers * per_writer / sw.seconds


async def _two_writers_one_session(url: str, attempts: int = 200) -> tuple[int, int]:
    """Two writers race on one session; returns (events stored, StaleSessionErrors seen)."""
    a, b = session_service_from_url(url), session_service_from_url(url)
    app = f"bench_{uuid.uuid4().hex[:8]}"
    created = await a.create_session(app_name=app, user_id="u")
    stale = 0

    async def writer(svc, name: str) -> None:
        nonlocal stale
        session = await svc.get_session(app_name=app, user_id="u", session_id=created.id)
        for i in range(attempts):
            try:
                await svc.append_event(session, Event(author=name, actions=EventActions(state_delta={name: i})))
            except StaleSessionError:
                stale += 1
                session = await svc.get_session(app_name=app, user_id="u", session_id=created.id)

    await asyncio.gather(writer(a, "a"), writer(b, "b"))
    final = await a.get_session(app_name=app, user_id="u", session_id=created.id)
    ids = [e.id for e in final.events]
    assert len(ids) == len(set(ids)) and final.version == len(ids) + 1, "a version was written twice"
    await a.close()
    await b.close()
    return len(ids), stale


async def _list_ms(url: str, sessions: int) -> float:
    svc = session_service_from_url(url)
    app = f"bench_{uuid.uuid4().hex[:8]}"
    for i in range(sessions):
        await svc.create_session(app_name=app, user_id=f"u{i % 100}")
    times = []
    for _ in range(5):
        with Stopwatch() as sw:
            listed = await svc.list_sessions(app_name=app)
        times.append(sw.seconds * 1000)
        assert len(listed.sessions) == sessions
        del listed  # freed outside the next timed listing
    await svc.close()
    return median(times)


async def run_async(kinds: list[str], *, runs: int = 3, quick: bool = False, postgres_url: str | None = None) -> Table:
    n_short, n_long, n_list = (500, 2000, 1000) if quick else (2000, 20000, 10000)
    results: dict[str, dict[str, str]] = {k: {} for k in kinds}
    with bench_stores(kinds, postgres_url) as stores:
        for kind in kinds:
            r = results[kind]
            rates, loads, loads20, bare, decodes, latency_p50, latency_p99 = [], [], [], [], [], [], []
            for _ in range(runs):
                gc.collect()  # the earlier runs' garbage is not this run's cost
                each: list[float] = []
                rate, _, svc, key = await _append_run(stores.fresh(kind), n_short, each)
                rates.append(rate)
                each.sort()
                latency_p50.append(each[len(each) // 2] * 1e6)
                latency_p99.append(each[len(each) * 99 // 100] * 1e6)
                if kind == "sqlite":
                    bare.append(await _bare_sqlite_rate(stores.fresh(kind), n_short))
                elif kind == "postgresql":
                    bare.append(await _bare_postgres_rate(stores.fresh(kind), n_short))
                loads.append(await _load_ms(svc, key, None))
                decodes.append(_decode_ms(svc, key))
                loads20.append(await _load_ms(svc, key, GetSessionConfig(num_recent_events=20)))
                await svc.close()
                del svc
            r["appends"] = f"{median(rates):,.0f}/s"
            r["latency"] = f"{median(latency_p50):,.0f} · {median(latency_p99):,.0f} µs"
            if bare:
                ratio = median([ours / floor for ours, floor in zip(rates, bare)])
                r["bare"] = f"{median(bare):,.0f}/s (Chronicle at {ratio:.0%})"
            r["load_all"] = f"{median(loads):.1f} ms"
            share = median([floor / ours for ours, floor in zip(loads, decodes)])
            r["decode"] = f"{median(decodes):.1f} ms (Chronicle at {share:.0%})"
            r["load20"] = f"{median(loads20):.2f} ms"

            _, blocks, svc, key = await _append_run(stores.fresh(kind), n_long)
            r["load20_long"] = f"{await _load_ms(svc, key, GetSessionConfig(num_recent_events=20)):.2f} ms"
            await svc.close()
            # One block of 100 appends against another is at the mercy of a single stall
            # (a full garbage collection, the host), so the ratio is the median of three runs.
            growths = [_growth(blocks, n_long // 2)]
            for _ in range(2):
                _, blocks, svc, _ = await _append_run(stores.fresh(kind), n_long // 2)
                await svc.close()
                growths.append(_growth(blocks, n_long // 2))
            r["growth"] = f"{median(growths):.2f}x"

            r["list"] = f"{await _list_ms(stores.fresh(kind), n_list):.1f} ms"
            if kind == "postgresql":
                r["writers16"] = f"{median([await _concurrent_writers(stores.fresh(kind)) for _ in range(runs)]):,.0f}/s"
                stored, stale = await _two_writers_one_session(stores.fresh(kind))
                r["two_writers"] = f"{stored} stored once each, {stale} stale refused"
    rows_spec = [
        ("appends", f"durable appends, one writer ({n_short:,} events)", "≥20,000/s mem · ≥2,000 SQLite · ≥1,000 PG"),
        ("latency", "one append's time, median · 99th percentile", "–"),
        ("bare", "the same rows, bare SQL through one thread (floor)", "–"),
        ("load_all", f"load the {n_short:,}-event session, all events", "≤40 ms"),
        ("decode", "decoding the same rows alone, read beforehand (floor)", "–"),
        ("load20", f"load with num_recent_events=20 ({n_short:,} events)", "≤3 ms"),
        ("load20_long", f"load with num_recent_events=20 ({n_long:,} events)", "≤3 ms, flat"),
        ("growth", f"appends {n_long // 2 - 99:,}–{n_long // 2:,} vs 1–100 (time ratio, median of 3)", "≤1.5x"),
        ("list", f"list_sessions over {n_list:,} sessions", "≤100 ms"),
        ("writers16", "16 writers on 16 sessions, together", "≥1,500/s (PG)"),
        ("two_writers", "two writers on one session", "each version once"),
    ]
    headers = ["measure", *kinds, "target"]
    rows = [[label, *(results[k].get(key, "–") for k in kinds), target] for key, label, target in rows_spec]
    return Table(f"chronicle bench sessions (median of {runs} runs)", headers, rows)


def run(kinds: list[str] | None = None, **kwargs) -> Table:
    return asyncio.run(run_async(kinds or KINDS, **kwargs))


if __name__ == "__main__":
    print(run(quick=True).text())
