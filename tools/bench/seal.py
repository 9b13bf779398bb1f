"""`chronicle bench seal`: what sealing and checking against the seals cost.

Workload: N sessions of E events each (1,000 x 10; 100 x 5 with --quick) written through the
session service, spread over 50 users. Then: the first seal (every log), a seal with nothing new
(none is written), a seal after 20 more sessions (only what changed), `verify --key`'s check of
every sealed log (``check_seals``) beside plain verify's chain walk of the same store, and the
checkpoints' stored size. Each run uses a fresh store; the medians of `runs` runs are reported.

    python -m tools.bench.seal [--stores memory,sqlite,postgresql] [--runs 3] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Optional

from google.genai import types

from domain import Event
from domain.seal_keys import ED25519, new_key
from runtime.operations.audit import logs_to_check, verify_store
from runtime.operations.seal import check_seals, export_lines, seal
from runtime.sessions import session_service_from_url
from tools.bench.common import Table, bench_stores, median

KINDS = ["memory", "sqlite", "postgresql"]
APP = "bench_seal"
LATER = 20


async def _fill(sessions, prefix: str, count: int, events: int) -> None:
    async def one(i: int) -> None:
        session = await sessions.create_session(app_name=APP, user_id=f"u{i % 50}", session_id=f"{prefix}{i}")
        for j in range(events):
            text = types.Content(role="user" if j % 2 == 0 else "model", parts=[types.Part(text=f"turn {j} of {i}")])
            await sessions.append_event(session, Event(author="user" if j % 2 == 0 else "agent",
                                                       invocation_id=f"inv-{j // 2}", content=text))

    for start in range(0, count, 50):  # 50 sessions at a time: appends share commits, as a server's would
        await asyncio.gather(*(one(i) for i in range(start, min(start + 50, count))))


def _measure(url: str, count: int, events: int) -> dict[str, float]:
    sessions = session_service_from_url(url)
    store = sessions.store
    try:
        asyncio.run(_fill(sessions, "s", count, events))
        key = new_key(ED25519)
        figures: dict[str, float] = {}
        t0 = time.perf_counter()
        seal(store, key)
        figures["first"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        assert seal(store, key) == []
        figures["nothing new"] = (time.perf_counter() - t0) * 1000
        asyncio.run(_fill(sessions, "later", LATER, events))
        t0 = time.perf_counter()
        seal(store, key)
        figures["later"] = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        report = check_seals(store, key)
        figures["check"] = time.perf_counter() - t0
        assert report.ok and report.logs == count + LATER
        t0 = time.perf_counter()
        verify_store(store, logs_to_check(store))
        figures["verify"] = time.perf_counter() - t0
        figures["kB"] = sum(len(line) for line in export_lines(store)) / 1000
        return figures
    finally:
        asyncio.run(sessions.close())


def run(
    kinds: Optional[list[str]] = None, *, runs: int = 3, quick: bool = False, postgres_url: Optional[str] = None
) -> Table:
    kinds = kinds or KINDS
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"Unknown store kind(s) {unknown}; choose from {KINDS}.")
    count, events = (100, 5) if quick else (1000, 10)
    rows = []
    with bench_stores(kinds, postgres_url) as stores:
        for kind in kinds:
            results = [_measure(stores.fresh(kind), count, events) for _ in range(runs)]
            m = {name: median([r[name] for r in results]) for name in results[0]}
            rows.append([kind, f"{m['first']:.2f}", f"{m['nothing new']:.1f}", f"{m['later']:.0f}",
                         f"{m['check']:.2f}", f"{m['verify']:.2f}", f"{m['kB']:.0f}"])
    return Table(
        f"Sealing {count:,} sessions of {events} events (medians of {runs} runs)",
        ["store", "first seal s", "nothing new ms", f"after {LATER} new sessions ms", "verify --key check s",
         "plain verify s", "checkpoints kB"],
        rows,
    )


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bench.seal", description=__doc__.split("\n\n")[0])
    parser.add_argument("--stores", help="comma-separated: memory,sqlite,postgresql (default: all)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--postgres", help="use this PostgreSQL URL instead of starting a server")
    args = parser.parse_args(argv)
    table = run(args.stores.split(",") if args.stores else None, runs=args.runs, quick=args.quick,
                postgres_url=args.postgres)
    print(table.text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
