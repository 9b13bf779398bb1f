"""The runtime benchmark (issue 3): turns per second of a real Runner over one long session.

Workload: a scripted model calls one tool (which writes session and `user:` state) and then
answers; 200 turns in one session. Each turn is a full invocation: the user's message is
committed, two model calls, one tool call, four events committed.

    python -m tools.bench.runtime [--turns 200] [store URL ...]

Reported per store: turns/s over all turns and over the first 20, and the time of the 10th and
the last turn. Single turns are noisy (a GC pause, a WAL checkpoint), so `turn_10_ms` and
`turn_last_ms` are medians of the 10 turns around them (turns 6-15 and the last 10); the raw
single-turn times are reported too.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import tempfile
import time
import uuid
from typing import Any, Optional

from google.genai import types

from runtime.agents.llm_agent import LlmAgent
from runtime.models import LlmResponse, ScriptedLlm
from runtime.runner import Runner
from runtime.sessions import session_service_from_url
from tools.bench.common import Table
from tools.bench.orders_agent import build

APP_NAME = "bench_runtime"


def _call_turn(request: Any) -> LlmResponse:
    return LlmResponse(content=ScriptedLlm.call("record_order", item="coffee", quantity=2))


def _answer_turn(request: Any) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="Your order is recorded.")]))


def _agent() -> LlmAgent:
    # The order-taking agent `bench serve` serves too. Turns are functions returning LlmResponses:
    # a fresh call id each turn, and no token estimate (the scripted model's estimate reads the
    # whole request, a cost no real model puts on us).
    return build("runtime", model=ScriptedLlm([_call_turn, _answer_turn], cycle=True))


async def _bench_store(url: str, turns: int) -> dict[str, Any]:
    service = session_service_from_url(url)
    runner = Runner(app_name=APP_NAME, agent=_agent(), session_service=service)
    user_id, session_id = "bench_user", f"bench-{uuid.uuid4().hex[:12]}"
    await service.create_session(app_name=APP_NAME, user_id=user_id, session_id=session_id)
    times: list[float] = []
    events = 0
    try:
        gc.collect()
        started = time.perf_counter()
        for i in range(turns):
            message = types.Content(role="user", parts=[types.Part(text=f"Two coffees please ({i})")])
            t0 = time.perf_counter()
            async for _ in runner.run_async(user_id=user_id, session_id=session_id, new_message=message):
                events += 1
            times.append(time.perf_counter() - t0)
        total = time.perf_counter() - started
        session = await service.get_session(app_name=APP_NAME, user_id=user_id, session_id=session_id)
        assert session is not None and len(session.events) == 4 * turns, "every turn must store 4 events"
        assert session.state["orders"] == turns
    finally:
        await runner.close()
        await service.close()

    def window(center: int) -> float:
        lo, hi = max(0, center - 5), min(len(times), center + 5)
        return statistics.median(times[lo:hi]) * 1000

    tenth = window(10) if turns >= 10 else times[-1] * 1000
    last = statistics.median(times[-10:]) * 1000
    first20 = times[: min(20, turns)]
    return {
        "store": _redact(url),
        "turns": turns,
        "events": events,
        "seconds": round(total, 3),
        "turns_per_s": round(turns / total, 1),
        "first20_turns_per_s": round(len(first20) / sum(first20), 1),
        "turn_10_ms": round(tenth, 3),
        "turn_last_ms": round(last, 3),
        "last_vs_10th": round(last / tenth, 2),
        "turn_10_raw_ms": round(times[min(9, turns - 1)] * 1000, 3),
        "turn_last_raw_ms": round(times[-1] * 1000, 3),
    }


def run_benchmark(store_urls: list[str], turns: int = 200) -> list[dict[str, Any]]:
    """Runs the workload once per store URL and returns one result dict per store."""
    return [asyncio.run(_bench_store(url, turns)) for url in store_urls]


def table(results: list[dict[str, Any]]) -> Table:
    return Table(
        "chronicle bench runtime: turns of a scripted tool-calling agent in one session",
        ["store", "turns", "turns/s", "turns/s, first 20", "10th turn ms", "last turn ms", "last / 10th"],
        [[r.get("kind", r["store"]), f"{r['turns']:,}", f"{r['turns_per_s']:,.1f}", f"{r['first20_turns_per_s']:,.1f}",
          f"{r['turn_10_ms']:.2f}", f"{r['turn_last_ms']:.2f}", f"{r['last_vs_10th']:.2f}"] for r in results],
    )


def _redact(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        return f"{scheme}://{creds.split(':', 1)[0]}@{host}"
    return url


def default_store_urls(directory: Optional[str] = None) -> list[str]:
    directory = directory or tempfile.mkdtemp(prefix="chronicle-bench-")
    urls = ["memory://", f"sqlite:///{os.path.join(directory, 'bench_runtime.db')}"]
    if os.environ.get("CHRONICLE_BENCH_POSTGRES"):
        urls.append(os.environ["CHRONICLE_BENCH_POSTGRES"])
    return urls


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bench.runtime", description=__doc__.split("\n\n")[0])
    parser.add_argument("urls", nargs="*", help="store URLs (default: memory:// and a temporary SQLite file)")
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args(argv)
    results = run_benchmark(args.urls or default_store_urls(), turns=args.turns)
    print(table(results).text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
