"""A projection worker process: follows a store's log and keeps projections up to date.

    python -m runtime.read_models.worker --store postgresql://…/db --projection analytics
    python -m runtime.read_models.worker --store sqlite:///chronicle.db --projection mypkg.mod:MY_PROJECTION

Each ``--projection`` is a built-in name (scoped_state, artifacts, analytics) or the
``module:attribute`` of a ``Projection``; without one, the built-ins run. The worker catches
up from each projection's stored position, then follows new events (LISTEN/NOTIFY on
PostgreSQL, polling on SQLite) until SIGTERM or Ctrl-C. Killed at any moment, it resumes from
its position: every batch's rows are written with the position, in one transaction.
Several workers may run the same projection (one applies each batch, the others skip it).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys
import threading

from projections.base import Projection
from runtime.read_models.projector import builtin_projections
from runtime.read_models.follower import ProjectionFollower
from runtime.stores import DEFAULT_STORE_URL, open_store


def resolve_projection(name: str) -> Projection:
    builtin = {p.name: p for p in builtin_projections()}
    if name in builtin:
        return builtin[name]
    if ":" in name:
        module_name, _, attribute = name.partition(":")
        projection = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(projection, Projection):
            raise SystemExit(f"{name} is a {type(projection).__name__}, not a Projection")
        return projection
    raise SystemExit(f"Unknown projection {name!r}: use one of {sorted(builtin)} or module:attribute")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m runtime.read_models.worker", description=__doc__.split("\n")[0])
    parser.add_argument("--store", default=os.environ.get("CHRONICLE_STORE") or DEFAULT_STORE_URL, help="store URL")
    parser.add_argument("--projection", action="append", help="built-in name or module:attribute (repeatable)")
    parser.add_argument("--rebuild", action="store_true", help="drop and refold the projections first")
    parser.add_argument("--once", action="store_true", help="catch up, then exit instead of following")
    parser.add_argument("--batch", type=int, default=10_000, help="events per transaction when catching up")
    parser.add_argument("--poll", type=float, default=0.05, help="seconds between polls (SQLite)")
    parser.add_argument("--verbose", action="store_true", help="log every batch")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr
    )
    log = logging.getLogger("chronicle.projections.worker")

    projections = [resolve_projection(n) for n in args.projection] if args.projection else builtin_projections()
    store = open_store(args.store)
    runners = [ProjectionFollower(store, p, batch_size=args.batch, poll_interval=args.poll) for p in projections]
    for runner in runners:
        if args.rebuild:
            log.info("%s: rebuilt, %d events", runner.name, runner.rebuild())
        else:
            log.info("%s: from position %d", runner.name, runner.position())
    if args.once:
        for runner in runners:
            log.info("%s: caught up, %d events", runner.name, runner.catch_up())
        store.close()
        return 0

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    for runner in runners:
        runner.start()
    log.info("following %s on %s", ", ".join(r.name for r in runners), args.store.split("@")[-1])
    status = 0
    while not stop.wait(0.5):
        if any(r.error is not None for r in runners):
            status = 1
            break
    for runner in runners:
        try:
            runner.stop()
        except Exception:  # noqa: BLE001 - reported, and the exit status says so
            log.exception("%s failed", runner.name)
            status = 1
    store.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
