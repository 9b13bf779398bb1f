"""`chronicle bench scale`: how cost grows with the store (issue 33's table).

One store holds N sessions of 6 events over 50 users, plus one long session of L events. Each
operation whose answer is about one session or one user should cost what that session or user
holds, not what the store holds; the table says what each costs here, beside google-adk 2.13's
figure where it has the same operation (run under `.venv-adk` for those), and how much the
server's resident memory grew over each call (its answer's size beside it).

The stores are built fast, through the store's own API (``Store.save`` with a session's events
in one transaction, snapshots taken where a live append takes them), never with SQL of our own.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.request import Request, urlopen

from pydantic_core import from_json

from domain import Event, EventActions, chain
from domain.session_log import SessionLog, session_log_id
from domain.state import split_scopes
from runtime.log_reader import LogReader
from runtime.operations.audit import audit, audit_since
from runtime.operations.import_adk import catalog_row
from runtime.sessions import session_service_from_url
from runtime.stores import open_store
from runtime.stores.application import SNAPSHOT_INTERVAL
from runtime.stores.rows import SideRows
from tools.bench.common import Stopwatch, Table, bench_stores, median
from tools.bench.sessions import workload_event
from tools.serve_process import ServerProcess, free_port

KINDS = ["sqlite", "postgresql"]
APP = "bench_scale"
USERS = 50
PER_SESSION = 6
LONG_USER, LONG = "user-0", "long"
ROOT = Path(__file__).resolve().parents[2]
AGENTS = Path(__file__).resolve().parent / "serve_agents"
DEFAULT = {"n": 1_000, "l": 1_000}
QUICK = {"n": 200, "l": 400}


# -- building a store ------------------------------------------------------------------------

def _payload(i: int, prefix: str) -> dict[str, Any]:
    event = workload_event(i)
    event.invocation_id = f"{prefix}-{i // 2}"
    return event.checked_json_dict()


def write_session(store: Any, user: str, session_id: str, payloads: list[dict[str, Any]]) -> None:
    """One session with these events, saved in chunks that end where a live append snapshots
    (so the store holds the snapshots a live session would)."""
    log = SessionLog.start(APP, user, session_id, {}, payloads[0]["timestamp"] - 1 if payloads else time.time())
    side = SideRows(new_sessions=[catalog_row(log)])
    for payload in payloads:
        log.record(payload)
        side.claims.append((log.id, payload["id"], log.version))
        scoped = split_scopes(payload["actions"].get("state_delta"))
        side.scoped += [(APP, "", k, v) for k, v in scoped.app.items()]
        side.scoped += [(APP, user, k, v) for k, v in scoped.user.items()]
        if log.version % SNAPSHOT_INTERVAL == 0:
            _flush(store, log, side)
            side = SideRows()
    if side.new_sessions or side.claims:  # what the last chunk left
        _flush(store, log, side)


def _flush(store: Any, log: SessionLog, side: SideRows) -> None:
    if side.new_sessions:
        side.new_sessions = [catalog_row(log)]
    else:
        side.updated_sessions = [catalog_row(log)]
    store.save(log, side)


def build(url: str, n: int, l: int) -> dict[str, Any]:
    """Fills the store at ``url``; returns its sizes and the seconds it took."""
    store = open_store(url)
    try:
        with Stopwatch() as watch:
            for s in range(n):
                write_session(store, f"user-{s % USERS}", f"s{s}", [_payload(i, f"s{s}") for i in range(PER_SESSION)])
            write_session(store, LONG_USER, LONG, [_payload(i, "long") for i in range(l)])
        # As a store in use would be by then (PostgreSQL's autovacuum analyses a table after a bulk
        # load): the queries timed next are planned on the store's statistics, not on none.
        store.settle()
    finally:
        store.close()
    return {"events": n * (PER_SESSION + 1) + l + 1, "build_s": watch.seconds}


def build_adk(service: Any, n: int, l: int) -> None:
    """The sessions the compared calls read, in google-adk's own service: the long one and the
    listed user's (through its API: it has no bulk write, and its appends would take many
    minutes for the whole store; a smaller store only helps it)."""
    from google.adk.events import Event as AdkEvent, EventActions as AdkActions

    async def fill() -> None:
        for s in [-1, *range(1, n, USERS)]:
            user, sid, count = (LONG_USER, LONG, l) if s < 0 else (f"user-{s % USERS}", f"s{s}", PER_SESSION)
            session = await service.create_session(app_name=APP, user_id=user, session_id=sid)
            for i in range(count):
                await service.append_event(session, workload_event(i, AdkEvent, AdkActions))

    asyncio.run(fill())


# -- measuring ---------------------------------------------------------------------------------

def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def _get(server: ServerProcess, path: str, runs: int) -> dict[str, float]:
    """The median seconds of GET ``path``, its answer's bytes, and how much the server's resident
    memory grew over a call (the most over the runs; what a call frees, Python mostly keeps)."""
    times, size, rise = [], 0, 0
    for _ in range(runs):
        before = _rss_kib(server.process.pid)
        with Stopwatch() as watch, urlopen(Request(server.url + path), timeout=600) as answer:
            size = len(answer.read())
            if answer.status != 200:
                raise RuntimeError(f"GET {path}: {answer.status}")
        times.append(watch.seconds)
        rise = max(rise, _rss_kib(server.process.pid) - before)
    return {"s": median(times), "bytes": size, "rise_kib": rise}


def _cli(url: str, *args: str) -> float:
    """The seconds of a `chronicle` command in a fresh process (start-up included)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with Stopwatch() as watch:
        done = subprocess.run([sys.executable, "-m", "tools.cli", "--store", url, *args], cwd=str(ROOT), env=env,
                              capture_output=True, text=True, timeout=3600)
    if done.returncode not in (0,):
        raise RuntimeError(f"chronicle {' '.join(args)} failed ({done.returncode}): {done.stderr[-800:]}")
    return watch.seconds


def _service_calls(make_service: Any, runs: int) -> dict[str, float]:
    """get_session (full) of the long session and list_sessions of one user, medians in seconds."""
    async def measure() -> dict[str, float]:
        service = make_service()
        full, listed = [], []
        for _ in range(runs):
            with Stopwatch() as watch:
                session = await service.get_session(app_name=APP, user_id=LONG_USER, session_id=LONG)
            assert session is not None and session.events
            full.append(watch.seconds)
            with Stopwatch() as watch:
                await service.list_sessions(app_name=APP, user_id="user-1")
            listed.append(watch.seconds)
        close = getattr(service, "close", None)
        if close is not None:
            await close()
        return {"get_full_s": median(full), "list_s": median(listed)}

    return asyncio.run(measure())


def _appends_at_snapshots(url: str) -> dict[str, float]:
    """Median milliseconds of an append to the long session that takes a snapshot, and of one
    that does not (a snapshot's cost should not grow with the history)."""
    async def measure() -> dict[str, float]:
        service = session_service_from_url(url)
        session = await service.get_session(app_name=APP, user_id=LONG_USER, session_id=LONG)
        at, others = [], []
        for i in range(2 * SNAPSHOT_INTERVAL):
            event = Event(author="user", invocation_id=f"tail-{i}", actions=EventActions(state_delta={"tail": i}))
            with Stopwatch() as watch:
                await service.append_event(session, event)
            (others if session.version % SNAPSHOT_INTERVAL else at).append(watch.seconds * 1000)
        await service.close()
        return {"snapshot_ms": median(at), "other_ms": median(others)}

    return asyncio.run(measure())


def _storage(url: str) -> dict[str, int]:
    """Bytes of the long session's stored events and of its stored snapshots."""
    store = open_store(url)
    try:
        reader = LogReader(store)
        log_id = session_log_id(APP, LONG_USER, LONG)
        events = sum(len(row.state) for row in reader.stored_events(log_id))
        snapshots = reader.snapshots(log_id)
        return {"event_bytes": events, "snapshot_bytes": sum(len(row.state) for row in snapshots),
                "snapshots": len(snapshots)}
    finally:
        store.close()


def _verify_figures(url: str) -> dict[str, Any]:
    """In one process: the whole store's verify (events/s), an incremental one of everything
    (``--since 0``: chains and catalog rows), one user's and one short session's (what a scoped
    verify costs), and the floor under all of them: the long session's hash chain alone
    recomputed from its stored rows (decode, digest, link; nothing else checked)."""
    store = open_store(url)
    try:
        with Stopwatch() as whole:
            report = audit(store)
        assert report.ok, (report.broken, report.scoped, report.drifted)
        with Stopwatch() as since:
            assert audit_since(store, 0).ok
        with Stopwatch() as user:
            assert audit(store, app_name=APP, user_id="user-1").ok
        with Stopwatch() as one:
            assert audit(store, app_name=APP, user_id="user-1", session_id="s1").ok
        rows = LogReader(store).stored_events(session_log_id(APP, LONG_USER, LONG))
        with Stopwatch() as floor:
            assert chain.verify([(r.originator_version, r.topic, from_json(r.state)) for r in rows]) is None
        return {"verify_events": report.events, "verify_s": whole.seconds, "verify_since_s": since.seconds,
                "verify_user_s": user.seconds,
                "verify_session_s": one.seconds, "floor_rate": len(rows) / floor.seconds}
    finally:
        store.close()


def _serve(url: str) -> ServerProcess:
    port = free_port()
    return ServerProcess(
        [sys.executable, "-m", "tools.cli", "serve", str(AGENTS), "--store", url, "--port", str(port),
         "--log-level", "warning"],
        port, env={"PYTHONPATH": str(ROOT), "CHRONICLE_SERVER_TOKENS": ""}, cwd=str(ROOT),
    )


def _rare_word(n: int) -> tuple[str, str]:
    """A word few sessions hold (in their ids: s{n/10-1} and the ten s{n/10-1}0…9, whatever n),
    and the user of the first of them. Every session's texts hold "fox"."""
    first = n // 10 - 1
    return f"s{first}", f"user-{first % USERS}"


def measure(kind: str, url: str, n: int, l: int, runs: int, adk_url: str | None) -> dict[str, Any]:
    figures: dict[str, Any] = {"kind": kind, "n": n, "l": l, **build(url, n, l)}
    figures.update(_storage(url))
    session = f"/apps/{APP}/users/{LONG_USER}/sessions/{LONG}"
    server = _serve(url)
    try:
        server.wait()
        for path in ("/chronicle/sessions?limit=1", *(f"/apps/{APP}/users/user-0/sessions/s0/{what}"
                                                       for what in ("history", "verify", "pending"))):
            _get(server, path, 1)  # the routes' first-call imports, on a short session
        figures["page"] = _get(server, "/chronicle/sessions", runs)
        rare, rare_user = _rare_word(n)
        for key, query in (("search_all", "q=fox"), ("search", "q=fox&user=user-1"),
                           ("search_rare", f"q={rare}"), ("search_rare_user", f"q={rare}&user={rare_user}")):
            figures[key] = _get(server, f"/chronicle/sessions?{query}", runs)
        figures["history"] = _get(server, session + "/history", runs)
        figures["verify"] = _get(server, session + "/verify", runs)
        figures["pending"] = _get(server, session + "/pending", runs)
    finally:
        server.stop()
    figures["cli_history_s"] = median([_cli(url, "history", LONG, "--app", APP, "--user", LONG_USER)
                                       for _ in range(max(1, runs // 2))])
    figures["cli_verify_s"] = _cli(url, "verify")
    figures.update(_verify_figures(url))
    figures.update(_service_calls(lambda: session_service_from_url(url), runs))
    if adk_url is not None:
        from tools.bench.adk import adk_session_service

        build_adk(adk_session_service(kind, adk_url), n, l)
        adk = _service_calls(lambda: adk_session_service(kind, adk_url), runs)
        figures["adk"] = adk
    figures.update(_appends_at_snapshots(url))
    return figures


# -- the table ---------------------------------------------------------------------------------

def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms" if seconds < 10 else f"{seconds:,.1f} s"


def _size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000
    return ""


def rows(f: dict[str, Any]) -> list[list[str]]:
    adk = f.get("adk") or {}
    adk_cell = lambda key: _ms(adk[key]) if key in adk else "–"  # noqa: E731

    def route(label: str, key: str) -> list[str]:
        r = f[key]
        return [f["kind"], label, _ms(r["s"]), "–", f"{_size(r['bytes'])} answer; server memory +{r['rise_kib'] / 1024:,.1f} MiB"]

    return [
        route("GET /chronicle/sessions (viewer's page)", "page"),
        route("GET /chronicle/sessions?q=fox (search: a word every session holds)", "search_all"),
        route("GET /chronicle/sessions?q=fox&user=… (the same, one user's)", "search"),
        route(f"GET /chronicle/sessions?q={_rare_word(f['n'])[0]} (search: a word 11 sessions hold)", "search_rare"),
        route("GET /chronicle/sessions?q=…&user=… (the same, one user's)", "search_rare_user"),
        route("GET …/history of the long session", "history"),
        route("GET …/verify of the long session", "verify"),
        route("GET …/pending of the long session", "pending"),
        [f["kind"], "`chronicle history LONG` (a fresh process)", _ms(f["cli_history_s"]), "–", ""],
        [f["kind"], "`chronicle verify` (whole store, a fresh process)", _ms(f["cli_verify_s"]), "–",
         f"{f['events']:,} events"],
        [f["kind"], "verify of the whole store (in process)", _ms(f["verify_s"]), "–",
         f"{f['verify_events'] / f['verify_s']:,.0f} events/s; the chain alone: {f['floor_rate']:,.0f} events/s"],
        [f["kind"], "`verify --since 0` (in process: every chain and catalog row)", _ms(f["verify_since_s"]), "–",
         f"{f['verify_events'] / f['verify_since_s']:,.0f} events/s"],
        [f["kind"], f"verify of one user ({f['n'] // USERS:,} sessions)", _ms(f["verify_user_s"]), "–", ""],
        [f["kind"], "verify of one short session", _ms(f["verify_session_s"]), "–", ""],
        [f["kind"], "get_session of the long session, full", _ms(f["get_full_s"]), adk_cell("get_full_s"), ""],
        [f["kind"], "list_sessions of one user", _ms(f["list_s"]), adk_cell("list_s"), ""],
        [f["kind"], "snapshots of the long session", _size(f["snapshot_bytes"]), "–",
         f"{f['snapshots']} kept; {f['snapshot_bytes'] / max(f['event_bytes'], 1):.2f}× its events' "
         f"{_size(f['event_bytes'])}"],
        [f["kind"], f"append to the long session, every {SNAPSHOT_INTERVAL}th (snapshot)", f"{f['snapshot_ms']:.2f} ms",
         "–", f"others {f['other_ms']:.2f} ms"],
        [f["kind"], "building the store (bulk, through Store.save)", _ms(f["build_s"]), "–",
         f"{f['events'] / f['build_s']:,.0f} events/s"],
    ]


def _adk_available() -> bool:
    try:
        import google.adk.sessions  # noqa: F401
    except ImportError:
        return False
    return True


def run(kinds: list[str] | None = None, *, runs: int = 3, quick: bool = False, postgres_url: str | None = None,
        n: int | None = None, l: int | None = None) -> Table:
    kinds = kinds or ["sqlite"]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"bench scale runs on {', '.join(KINDS)}, not {', '.join(unknown)}")
    sizes = QUICK if quick else DEFAULT
    n, l = n or sizes["n"], l or sizes["l"]
    if "postgresql" in kinds and postgres_url is not None:
        raise ValueError("bench scale builds two fresh databases per run: leave out --postgres (a server is started)")
    with_adk = _adk_available()
    table_rows: list[list[str]] = []
    with bench_stores(kinds, postgres_url) as stores:
        for kind in kinds:
            url = stores.fresh(kind)
            adk_url = stores.fresh(kind) if with_adk else None
            table_rows += rows(measure(kind, url, n, l, runs, adk_url))
    note = "" if with_adk else " (google-adk's figures: run under .venv-adk)"
    return Table(
        title=f"bench scale: N={n:,} sessions of {PER_SESSION} events over {USERS} users plus one of L={l:,} events, "
              f"median of {runs}{note}",
        headers=["store", "operation", "Chronicle", "google-adk", "notes"],
        rows=table_rows,
    )
