"""`chronicle bench projections`: the projections' figures (issue 4's workload).

* Rebuild: a log of 100,000 events (1,000 sessions of 100 events: a user message, a model
  tool call with usage, the tool's result — one in 20 an error — and a model answer per
  invocation; session keys on every event, a `user:` key every 10th, an `app:` key every
  50th, an artifact every 25th) is written in batches straight through the store's
  application; each tracked projection is then rebuilt from it.
* state_at on a 10,000-event session (written through the session service), at event ids,
  before/after invocations and at timestamps spread over the session.
* PostgreSQL only: a projection worker in its own process (`python -m
  runtime.read_models.worker`) follows 8 writers; its lag is sampled every 2 ms (how long
  after an event commits the worker's rows include it). Then a worker is killed (SIGKILL)
  mid-stream and restarted: its rows must equal a rebuild's, row for row.

Each figure is the median of several runs.
"""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from typing import Any

from domain.session_log import SessionLog
from tools.bench.common import Stopwatch, Table, bench_stores, median

KINDS = ["memory", "sqlite", "postgresql"]
TEXT = ("The quick brown fox jumps over the lazy dog while the agent keeps its log. " * 4)[:240]
_ACTIONS_EMPTY = {"requested_auth_configs": {}, "requested_tool_confirmations": {}}


def workload_event(i: int, invocation: str, timestamp: float) -> dict[str, Any]:
    """The stored JSON of the i-th event of a session (an invocation is 4 events)."""
    delta: dict[str, Any] = {"turn": i, "last": "model" if i % 4 else "user"}
    if i % 10 == 0:
        delta["user:turns_seen"] = i
    if i % 50 == 0:
        delta["app:events_seen"] = i
    actions: dict[str, Any] = {"state_delta": delta, "artifact_delta": {}, **_ACTIONS_EMPTY}
    if i % 25 == 0:
        actions["artifact_delta"] = {"report.txt": i // 25} if i % 50 else {"user:profile.json": i // 50}
    event: dict[str, Any] = {
        "id": str(uuid.uuid4()), "invocation_id": invocation, "timestamp": timestamp, "actions": actions,
    }
    step = i % 4
    call_id = f"adk-{invocation}"
    if step == 0:
        event.update(author="user", content={"role": "user", "parts": [{"text": TEXT}]})
    elif step == 1:
        event.update(
            author="assistant",
            content={"role": "model", "parts": [{"function_call": {"id": call_id, "name": "lookup", "args": {"q": TEXT[:40]}}}]},
            usage_metadata={"prompt_token_count": 420, "candidates_token_count": 18, "total_token_count": 438},
        )
    elif step == 2:
        result = {"error": "upstream timed out"} if i % 80 == 2 else {"result": TEXT[:120]}
        event.update(
            author="assistant",
            content={"role": "user", "parts": [{"function_response": {"id": call_id, "name": "lookup", "response": result}}]},
        )
    else:
        event.update(
            author="assistant",
            content={"role": "model", "parts": [{"text": TEXT}]},
            usage_metadata={"prompt_token_count": 610, "candidates_token_count": 64, "total_token_count": 674},
        )
    return event


def fill_log(store: Any, n_events: int, *, per_session: int = 100, app: str = "bench", group: int = 5) -> None:
    """Writes n_events in sessions of per_session events, `group` sessions per transaction."""
    start = time.time() - 86400
    logs: list[SessionLog] = []
    written, s = 0, 0
    while written < n_events:
        user = f"user{s % 50}"
        log = SessionLog.start(app, user, f"s{s}", {"app:plan": "pro", "user:name": user}, start + s)
        for i in range(min(per_session, n_events - written) - 1):
            log.record(workload_event(i, f"s{s}-{i // 4}", start + s + i * 0.25))
        logs.append(log)
        written += min(per_session, n_events - written)
        s += 1
        if len(logs) == group:
            store.application.save(*logs)
            logs = []
    if logs:
        store.application.save(*logs)


# -- rebuild ------------------------------------------------------------------------------


def _rebuild_rates(url: str, n_events: int, runs: int) -> dict[str, tuple[float, float]]:
    from runtime.read_models import builtin_projections
    from runtime.read_models.follower import ProjectionFollower
    from runtime.stores import open_store

    store = open_store(url)
    fill_log(store, n_events)
    store.settle()  # the bulk load's deferred I/O (a 100 MB WAL checkpoint) is not the rebuild's
    rates: dict[str, list[float]] = {}
    for projection in builtin_projections():
        runner = ProjectionFollower(store, projection)
        for _ in range(runs):
            with Stopwatch() as sw:
                folded = runner.rebuild()
            assert folded == n_events, (projection.name, folded)
            rates.setdefault(projection.name, []).append(folded / sw.seconds)
    store.close()
    return {name: (median(r), max(r)) for name, r in rates.items()}


# -- state_at -----------------------------------------------------------------------------


async def _state_at_ms(url: str, n_events: int) -> dict[str, float]:
    from google.genai import types

    from domain import Event, EventActions
    from runtime.read_models import At, TimeTravel
    from runtime.sessions import session_service_from_url

    service = session_service_from_url(url)
    app = f"bench_{uuid.uuid4().hex[:8]}"
    session = await service.create_session(app_name=app, user_id="u", state={"user:name": "u"})
    ids, invocations, stamps = [], [], []
    for i in range(n_events):
        data = workload_event(i, f"inv-{i // 4}", time.time())
        event = Event(
            author=data["author"], invocation_id=data["invocation_id"],
            content=types.Content.model_validate(data["content"]),
            actions=EventActions(state_delta=data["actions"]["state_delta"],
                                 artifact_delta=data["actions"]["artifact_delta"]),
        )
        await service.append_event(session, event)
        ids.append(event.id)
        stamps.append(event.timestamp)
        if i % 4 == 0:
            invocations.append(event.invocation_id)
    travel = TimeTravel(service.store)
    travel.catch_up()
    key = (app, "u", session.id)
    picks = [int(n_events * f) for f in (0.05, 0.23, 0.41, 0.5, 0.67, 0.88, 0.99)]
    cases = {
        "event": [At.event(ids[p]) for p in picks],
        "invocation": [At.before(invocations[p // 4]) for p in picks] + [At.after(invocations[p // 4]) for p in picks],
        "timestamp": [At.time(stamps[p]) for p in picks],
    }
    out = {}
    for name, positions in cases.items():
        times = []
        for _ in range(3):
            for position in positions:
                with Stopwatch() as sw:
                    travel.state_at(key, position)
                times.append(sw.seconds * 1000)
        out[name] = median(times)
    await service.close()
    return out


# -- a worker process following 8 writers (PostgreSQL) ------------------------------------


def _start_worker(url: str, projection: str) -> subprocess.Popen[bytes]:
    """Starts a worker process and returns once it has opened the store and follows the log
    (opening a PostgreSQL store runs DDL that can deadlock with concurrent appends)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    log = tempfile.NamedTemporaryFile(prefix="chronicle-worker-", suffix=".log", delete=False)
    worker = subprocess.Popen(
        [sys.executable, "-m", "runtime.read_models.worker", "--store", url, "--projection", projection],
        env=env, cwd=root, stdout=subprocess.DEVNULL, stderr=log,
    )
    deadline = time.time() + 60
    while b"following" not in open(log.name, "rb").read():
        if worker.poll() is not None or time.time() > deadline:
            raise RuntimeError(f"the projection worker did not start: {open(log.name).read()}")
        time.sleep(0.02)
    return worker


class _LagSampler:
    """Samples the log's end and the projection's position; lag of event n = when the position
    first reached n minus when the log first reached n."""

    def __init__(self, url: str, projection: str, interval: float = 0.002):
        from runtime.stores import open_store

        self.store = open_store(url)
        self.projection, self.interval = projection, interval
        self.log_seen: dict[int, float] = {}
        self.done_seen: list[tuple[int, float]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        last_log = 0
        while not self.stop.is_set():
            top, done = _positions(self.store, self.projection)
            now = time.perf_counter()
            for n in range(last_log + 1, top + 1):
                self.log_seen[n] = now
            last_log = max(last_log, top)
            self.done_seen.append((done, now))
            time.sleep(self.interval)

    def lags_ms(self) -> list[float]:
        lags, i = [], 0
        for n in sorted(self.log_seen):
            while i < len(self.done_seen) and self.done_seen[i][0] < n:
                i += 1
            if i == len(self.done_seen):
                break
            lags.append((self.done_seen[i][1] - self.log_seen[n]) * 1000)
        return lags

    def __enter__(self) -> _LagSampler:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        self.store.close()


retries = [0]  # appends retried after a deadlock with a process opening the store


async def _writers(url: str, writers: int, per_writer: int, *, pause: float = 0.0, on_half: Any = None) -> None:
    from eventsourcing.persistence import OperationalError
    from google.genai import types

    from domain import Event, EventActions
    from runtime.sessions import session_service_from_url

    service = session_service_from_url(url)
    app = f"live_{uuid.uuid4().hex[:6]}"
    sessions = [await service.create_session(app_name=app, user_id=f"w{w}") for w in range(writers)]
    half = asyncio.Event()
    written = 0

    async def write(session: Any) -> None:
        nonlocal written
        for i in range(per_writer):
            data = workload_event(i, f"{session.id}-{i // 4}", time.time())
            event = Event(
                author=data["author"], invocation_id=data["invocation_id"],
                content=types.Content.model_validate(data["content"]),
                usage_metadata=data.get("usage_metadata"),
                actions=EventActions(state_delta=data["actions"]["state_delta"],
                                     artifact_delta=data["actions"]["artifact_delta"]),
            )
            for attempt in range(5):
                try:
                    await service.append_event(session, event)
                    break
                except OperationalError:
                    # A transient database error (the append was rolled back): appends are
                    # idempotent by event id, so retry; the table says how many were.
                    retries[0] += 1
                    if attempt == 4:
                        raise
            written += 1
            if on_half is not None and written == writers * per_writer // 2:
                half.set()
            if pause:
                await asyncio.sleep(pause)

    tasks = [asyncio.create_task(write(s)) for s in sessions]
    if on_half is not None:
        await half.wait()
        await asyncio.get_running_loop().run_in_executor(None, on_half)
    await asyncio.gather(*tasks)
    await service.close()


def _positions(store: Any, projection: str) -> tuple[int, int]:
    """(end of the log, the projection's position), read through the store as any reader would."""
    return store.max_position(), store.projection_storage().position(projection)


def _wait_caught_up(url: str, projection: str, timeout: float = 60.0, *, at_least: int = 0) -> None:
    from runtime.stores import open_store

    store = open_store(url)
    try:
        deadline = time.time() + timeout
        while time.time() < deadline:
            top, done = _positions(store, projection)
            if done >= max(top, at_least):
                return
            time.sleep(0.02)
    finally:
        store.close()
    raise TimeoutError(f"projection {projection} did not catch up in {timeout} s")


def _warm_up(url: str, projection: str) -> None:
    """One event, folded: the worker is up and following before anything is measured."""
    from runtime.sessions import session_service_from_url

    async def write() -> None:
        service = session_service_from_url(url)
        await service.create_session(app_name="warmup", user_id="u")
        await service.close()

    asyncio.run(write())
    _wait_caught_up(url, projection, timeout=60, at_least=1)


def _prepare(url: str) -> None:
    """Creates the store's tables and the projections' tables before anyone samples them."""
    from runtime.read_models import storage_for
    from runtime.stores import open_store

    store = open_store(url)
    storage_for(store)
    store.close()


def _lag_run(url: str, per_writer: int, projection: str = "analytics") -> tuple[float, float, int]:
    _prepare(url)
    worker = _start_worker(url, projection)
    try:
        _warm_up(url, projection)
        with _LagSampler(url, projection) as sampler:
            with Stopwatch() as sw:
                asyncio.run(_writers(url, 8, per_writer))
            _wait_caught_up(url, projection)
            time.sleep(0.05)
        lags = sampler.lags_ms()
        rate = 8 * per_writer / sw.seconds
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(10)
    p95 = statistics.quantiles(lags, n=20)[-1] if len(lags) >= 20 else max(lags)
    return p95, rate, len(lags)


def _kill_and_resume(url: str, per_writer: int, projection: str = "analytics") -> tuple[bool, int]:
    from runtime.read_models import builtin_projections
    from runtime.read_models.follower import ProjectionFollower
    from runtime.stores import open_store

    _prepare(url)
    worker = _start_worker(url, projection)
    killed_at: list[int] = []

    def kill_and_restart() -> None:
        # Half the events are written and the worker is folding them: kill it mid-stream.
        store = open_store(url)
        killed_at.append(_positions(store, projection)[1])
        store.close()
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
        time.sleep(0.3)
        restarted.append(_start_worker(url, projection))

    restarted: list[subprocess.Popen[bytes]] = []
    try:
        _warm_up(url, projection)
        asyncio.run(_writers(url, 8, per_writer, on_half=kill_and_restart))
        _wait_caught_up(url, projection)
    finally:
        for w in restarted:
            w.send_signal(signal.SIGTERM)
            w.wait(10)
    store = open_store(url)
    spec = {p.name: p for p in builtin_projections()}[projection]
    live = ProjectionFollower(store, spec).rows()
    shadow = ProjectionFollower(store, _renamed(spec, projection + "_rebuild"))
    shadow.rebuild()
    rebuilt = shadow.rows()
    store.close()
    return live == rebuilt, killed_at[0] if killed_at else -1


def _renamed(projection: Any, name: str) -> Any:
    from projections.base import Projection

    return Projection(name, folds=projection.folds)


# -- the table ----------------------------------------------------------------------------


def run(kinds: list[str] | None = None, *, runs: int = 3, quick: bool = False, postgres_url: str | None = None) -> Table:
    kinds = kinds or KINDS
    n_rebuild, n_state, per_writer = (20_000, 2_000, 100) if quick else (100_000, 10_000, 400)
    results: dict[str, dict[str, str]] = {k: {} for k in kinds}
    with bench_stores(kinds, postgres_url) as stores:
        for kind in kinds:
            r = results[kind]
            for name, (rate, best) in _rebuild_rates(stores.fresh(kind), n_rebuild, runs).items():
                r[f"rebuild_{name}"] = f"{rate:,.0f}/s (best {best:,.0f})"
            timings = asyncio.run(_state_at_ms(stores.fresh(kind), n_state))
            for name, ms in timings.items():
                r[f"state_at_{name}"] = f"{ms:.2f} ms"
            if kind == "postgresql":
                lag_runs = [_lag_run(stores.fresh(kind), per_writer) for _ in range(runs)]
                p95 = median([p for p, _, _ in lag_runs])
                rate = median([w for _, w, _ in lag_runs])
                r["lag"] = f"{p95:.1f} ms p95 ({rate:,.0f} appends/s)"
                retries[0] = 0
                same, at = _kill_and_resume(stores.fresh(kind), per_writer)
                r["resume"] = (f"{'identical to a rebuild' if same else 'DIFFERENT from a rebuild'} (killed at position {at}"
                               + (f"; {retries[0]} appends retried" if retries[0] else "") + ")")
    rows_spec = [
        ("rebuild_scoped_state", f"rebuild scoped_state over {n_rebuild:,} events", "≥50,000/s"),
        ("rebuild_artifacts", f"rebuild artifacts over {n_rebuild:,} events", "≥50,000/s"),
        ("rebuild_analytics", f"rebuild analytics over {n_rebuild:,} events", "≥50,000/s"),
        ("state_at_event", f"state_at an event id ({n_state:,}-event session)", "≤5 ms"),
        ("state_at_invocation", f"state_at before/after an invocation ({n_state:,} events)", "≤5 ms"),
        ("state_at_timestamp", f"state_at a timestamp ({n_state:,} events)", "≤5 ms"),
        ("lag", f"worker process behind 8 writers ({8 * per_writer:,} events)", "≤100 ms p95 (PG)"),
        ("resume", "worker killed mid-stream, restarted: rows vs rebuild", "identical (PG)"),
    ]
    headers = ["measure", *kinds, "target"]
    rows = [[label, *(results[k].get(key, "–") for k in kinds), target] for key, label, target in rows_spec]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    title = f"chronicle bench projections (median of {runs} runs; load average {load:.1f} on {os.cpu_count()} CPUs)"
    return Table(title, headers, rows)


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv).text())
