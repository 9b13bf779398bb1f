"""`chronicle bench serve`: /run_sse turns per second behind `chronicle serve` and behind
google-adk 2.13's `adk api_server`, side by side, on SQLite.

Both serve the same app, one definition built by each library (serve_agents/bench_serve, from
tools.bench.orders_agent: the runtime benchmark's turn, a canned model calls `record_order`, which
writes session and `user:` state, then answers; four events stored per turn), each on a fresh
SQLite file, driven by the same httpx client: each client has its own session and sends turns
back to back, reading every frame of the stream. A turn that fails (ADK's SQLite service answers
concurrent appends with "database is locked") is counted apart, not in the rate. Reported per server, with 1 and with 16
concurrent clients: turns per second, and the p50 and p99 latency of a turn. Chronicle's
in-process rate (a Runner, no HTTP) on the same workload says what the HTTP layer costs.

google-adk runs in its own environment (`.venv-adk`, see the README; or $CHRONICLE_ADK_PYTHON);
without it the ADK columns say so and Chronicle's figures are still measured.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from tools.bench.common import Table
from tools.serve_process import ServerProcess, free_port

KINDS = ["sqlite"]
ROOT = Path(__file__).resolve().parents[2]
AGENTS = Path(__file__).resolve().parent / "serve_agents"
APP = "bench_serve"


TURN_DEADLINE_S = 60.0


def adk_python() -> Optional[str]:
    candidate = os.environ.get("CHRONICLE_ADK_PYTHON") or str(ROOT / ".venv-adk" / "bin" / "python")
    return candidate if os.path.exists(candidate) else None


def _chronicle(db: str) -> ServerProcess:
    port = free_port()
    return ServerProcess(
        [sys.executable, "-m", "tools.cli", "serve", str(AGENTS), "--store", f"sqlite:///{db}",
         "--port", str(port), "--log-level", "warning"],
        port, env={"PYTHONPATH": str(ROOT), "CHRONICLE_SERVER_TOKENS": ""}, cwd=str(ROOT),
    )


def _adk(python: str, db: str) -> ServerProcess:
    port = free_port()
    return ServerProcess(
        [python, "-m", "google.adk.cli", "api_server", str(AGENTS), "--port", str(port),
         "--session_service_uri", f"sqlite:///{db}", "--log_level", "warning", "--no-reload"],
        port, env={"PYTHONPATH": str(ROOT)}, cwd=tempfile.gettempdir(),  # the app imports tools.bench.orders_agent
    )


async def _drive(url: str, clients: int, turns_each: int) -> dict[str, float]:
    try:
        import httpx2 as httpx
    except ImportError:  # google-genai 2's environment
        import httpx  # type: ignore[no-redef]

    limits = httpx.Limits(max_connections=clients + 4)
    async with httpx.AsyncClient(base_url=url, timeout=60.0, limits=limits) as http:
        sessions = []
        for i in range(clients):
            answer = await http.post(f"/apps/{APP}/users/u{i}/sessions", json={})
            answer.raise_for_status()
            sessions.append((f"u{i}", answer.json()["id"]))
        latencies: list[float] = []
        failed: list[str] = []

        async def turn(user: str, session_id: str, n: int) -> None:
            body = {"appName": APP, "userId": user, "sessionId": session_id,
                    "newMessage": {"role": "user", "parts": [{"text": f"Two coffees please ({n})"}]}}
            t0 = time.perf_counter()
            try:
                # A whole-turn deadline: a stream left open with nothing sent (google-adk's server,
                # its SQLite locked under 16 clients) passes httpx's per-read timeout.
                async with asyncio.timeout(TURN_DEADLINE_S):
                    async with http.stream("POST", "/run_sse", json=body) as response:
                        frames = [line async for line in response.aiter_lines() if line.startswith("data:")]
            except (httpx.HTTPError, TimeoutError) as e:  # a turn that times out counts as failed
                failed.append(f"{type(e).__name__}")
                return
            if response.status_code != 200 or len(frames) != 3 or '"error"' in frames[-1]:
                failed.append(f"{response.status_code} {frames[-1:]}")  # ADK's SQLite service: "database is locked"
                return
            latencies.append(time.perf_counter() - t0)

        async def client(user: str, session_id: str) -> None:
            for n in range(turns_each):
                await turn(user, session_id, n)

        for user, session_id in sessions:  # warm up: first turns load code and open connections
            await turn(user, session_id, -1)
        if failed:
            raise RuntimeError(f"a warm-up turn failed: {failed[0]}")
        latencies.clear()
        started = time.perf_counter()
        await asyncio.gather(*(client(u, s) for u, s in sessions))
        seconds = time.perf_counter() - started
    ordered = sorted(latencies) or [float("nan")]
    return {
        "turns_per_s": len(latencies) / seconds,
        "failed": len(failed),
        "tried": len(failed) + len(latencies),
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
    }


def _measure(server: ServerProcess, quick: bool) -> dict[int, dict[str, float]]:
    server.wait()
    try:
        return {
            1: asyncio.run(_drive(server.url, 1, 30 if quick else 100)),
            16: asyncio.run(_drive(server.url, 16, 4 if quick else 15)),
        }
    finally:
        server.stop()


def run(kinds: Optional[list[str]] = None, *, runs: int = 1, quick: bool = False, **_: Any) -> Table:
    from tools.bench.runtime import run_benchmark

    if kinds and kinds != ["sqlite"]:
        raise ValueError("bench serve runs on SQLite only (adk api_server's SqliteSessionService beside it)")
    python = adk_python()
    with tempfile.TemporaryDirectory(prefix="chronicle-bench-serve-") as tmp:
        ours = _measure(_chronicle(f"{tmp}/chronicle.db"), quick)
        theirs = _measure(_adk(python, f"{tmp}/adk.db"), quick) if python else None
        in_process = run_benchmark([f"sqlite:///{tmp}/in_process.db"], turns=50 if quick else 200)[0]["turns_per_s"]
    rows = []
    for clients in (1, 16):
        mine = ours[clients]
        other = theirs[clients] if theirs else None
        rows.append([
            f"/run_sse, {clients} client{'s' if clients > 1 else ''}",
            f"{mine['turns_per_s']:.1f}" + (f" ({mine['failed']:.0f} of {mine['tried']:.0f} turns failed)" if mine["failed"] else ""),
            f"{mine['p50_ms']:.1f} / {mine['p99_ms']:.1f}",
            (f"{other['turns_per_s']:.1f}" + (f" ({other['failed']:.0f} of {other['tried']:.0f} turns failed)" if other["failed"] else ""))
            if other else "not installed",
            f"{other['p50_ms']:.1f} / {other['p99_ms']:.1f}" if other else "-",
            f"{mine['turns_per_s'] / other['turns_per_s']:.2f}×" if other else "-",
        ])
    rows.append(["Chronicle in process (a Runner, no HTTP)", f"{in_process:.1f}", "-", "-", "-",
                 f"1 client = {ours[1]['turns_per_s'] / in_process:.0%} of it"])
    return Table(
        title="bench serve: /run_sse turns per second, SQLite (a model call, a tool, an answer per turn)",
        headers=["", "Chronicle turns/s", "p50 / p99 ms", "ADK turns/s", "p50 / p99 ms", "Chronicle ÷ ADK"],
        rows=rows,
    )
