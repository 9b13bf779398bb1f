"""Where an in-memory append's time goes: `python -m tools.bench.append_profile [--runs N]`.

Times the phases of `LogSessionService.append_event` on the sessions workload (2,000 events to
one new session, as `bench sessions` and `bench adk` append them): each phase is timed by a
wrapper around the service's own function, in this process only, in CPU time (a shared host's
other jobs move wall time far more), and the table is the run with the fastest whole append
among `--runs`. The wrappers add about a µs per phase; the figures are for comparing phases
and trees (docs/benchmarks.md), not for quoting rates.

`--floor` times instead, on the same events, only what no append can skip with every check kept:
the state delta's check, the event's checks and JSON dump (`Event.checked_json_dict`), and its
link in the hash chain (the payload's encoding, its digest and the link). No store, no log, no
wrappers: the CPU time per event under which no in-memory append can go.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from collections import defaultdict
from typing import Any

from domain import chain as hash_chain
from domain.events import Event
from domain.state import check_json_state
from domain.session_log import SessionLog
from runtime.sessions import service, session_logs, session_service_from_url
from tools.bench.sessions import workload_event

N = 2000
WHOLE = "whole append (append_event)"
# (label, owner, attribute): the phases, outermost first.
PHASES = [
    ("state delta check (check_json_state)", service, "check_json_state"),
    ("event shape check (Event.check_shape)", Event, "check_shape"),
    ("event checks and JSON dump (Event.checked_dump)", Event, "checked_dump"),
    ("tool calls left open (left_open)", service, "left_open"),
    ("store side (LogSessionService._append)", service.LogSessionService, "_append"),
    ("  the cached log (SessionLogs.load_for_append)", session_logs.SessionLogs, "load_for_append"),
    ("  the log's event (SessionLog.record: digest, link, apply)", SessionLog, "record"),
    ("  side rows (split_scopes, catalog_row, SideRows)", service, "split_scopes"),
    ("  side rows (split_scopes, catalog_row, SideRows)", service, "catalog_row"),
    ("  side rows (split_scopes, catalog_row, SideRows)", service, "SideRows"),
    ("  recording (SessionLogs.save)", session_logs.SessionLogs, "save"),
]
# Timed on the store's own mapper (this module names no backend); the rest of recording is the
# recorder's write and the calls around it.
MAPPER = "    mapper (the application's mapper: to_stored_event)"


def _wrap(totals: dict[str, float], label: str, owner: Any, name: str) -> None:
    fn = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            totals[label] += time.process_time() - start

    setattr(owner, name, timed)


async def _run(totals: dict[str, float]) -> None:
    sessions = session_service_from_url("memory://")
    _wrap(totals, MAPPER, sessions.store.application.mapper, "to_stored_event")
    session = await sessions.create_session(app_name="profile", user_id="u")
    events = [workload_event(i) for i in range(N)]
    gc.collect()
    totals.clear()
    start = time.process_time()
    for event in events:
        await sessions.append_event(session, event)
    totals[WHOLE] = time.process_time() - start


def profile(runs: int = 7) -> dict[str, float]:
    """µs per append of each phase, from the run whose whole append was fastest."""
    totals: dict[str, float] = defaultdict(float)
    for label, owner, name in PHASES:
        _wrap(totals, label, owner, name)
    best: dict[str, float] | None = None
    for _ in range(runs):
        asyncio.run(_run(totals))
        if best is None or totals[WHOLE] < best[WHOLE]:
            best = dict(totals)
    assert best is not None
    labels = dict.fromkeys([WHOLE] + [p[0] for p in PHASES] + [MAPPER])  # in order, once each
    return {label: best.get(label, 0.0) / N * 1e6 for label in labels}


FLOOR = "floor: what every append must do (checks, JSON dump, chain link)"
FLOOR_PHASES = [
    "  state delta check (check_json_state)",
    "  event checks and JSON dump (Event.checked_json_dict)",
    "  chain: payload encoding, digest, link",
]


def _floor_run(events: list[Event]) -> list[float]:
    """CPU seconds of each floor phase over all ``events``, each phase timed as one loop (the
    clock is a system call: read per event, it would weigh on phases of a µs)."""
    clock, topic, encode, digest_of, link = (
        time.process_time, SessionLog.Recorded.TOPIC, hash_chain.encode, hash_chain.digest_of, hash_chain.link)
    t0 = clock()
    for event in events:
        check_json_state(event.actions.state_delta, "state_delta")
    t1 = clock()
    payloads = [event.checked_json_dict() for event in events]
    t2 = clock()
    head = hash_chain.GENESIS
    for version, payload in enumerate(payloads, start=2):
        head = link(head, version, digest_of(topic, encode({"event": payload})))
    t3 = clock()
    return [t1 - t0, t2 - t1, t3 - t2]


def floor(runs: int = 7) -> dict[str, float]:
    """µs per event of the floor and its phases, from the run whose total was lowest."""
    events = [workload_event(i) for i in range(N)]
    gc.collect()
    best = min((_floor_run(events) for _ in range(runs)), key=sum)
    return {FLOOR: sum(best) / N * 1e6} | {label: t / N * 1e6 for label, t in zip(FLOOR_PHASES, best)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--floor", action="store_true", help="time only what no append can skip")
    args = parser.parse_args()
    for label, micros in (floor(args.runs) if args.floor else profile(args.runs)).items():
        print(f"{micros:6.1f} µs  {label}")


if __name__ == "__main__":
    main()
