"""A cold full load, for `chronicle bench adk`: a fresh process opens the store and loads one whole
session, as a server just started or a command-line call does. Imports are done before the clock
starts (they are the start-up's cost, not the load's); opening the service and the load are timed.

    python -m tools.bench.cold_load SIDE KIND URL APP USER SESSION   # prints the milliseconds
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time


def cold_load_ms(side: str, kind: str, url: str, app: str, user: str, session_id: str) -> float:
    """The milliseconds a fresh process takes to open ``url`` and load the whole session."""
    done = subprocess.run([sys.executable, "-m", "tools.bench.cold_load", side, kind, url, app, user, session_id],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"cold load on {side} {kind} failed: {done.stderr.strip()[-800:]}")
    return float(done.stdout.strip().splitlines()[-1])


async def _load(side: str, kind: str, url: str, app: str, user: str, session_id: str) -> float:
    from tools.bench.adk import CHRONICLE_SIDE, adk_session_service

    make_service = adk_session_service if side == "adk" else CHRONICLE_SIDE[0]
    start = time.perf_counter()
    service = make_service(kind, url)
    session = await service.get_session(app_name=app, user_id=user, session_id=session_id)
    seconds = time.perf_counter() - start
    assert session is not None and session.events, "the session to load is missing"
    close = getattr(service, "close", None)
    if close is not None:
        await close()
    return seconds * 1000


def main(argv: list[str]) -> None:
    import warnings

    warnings.simplefilter("ignore")  # ADK's notices about experimental features
    side, kind, url, app, user, session_id = argv
    # Imported before the clock starts: both sides' modules, the event models, the drivers.
    import importlib

    import tools.bench.adk  # noqa: F401

    backend = "sqlite" if kind == "sqlite" else "postgres"
    for module in ("store", "recorder"):  # the package imports its modules on first use
        importlib.import_module(f"runtime.stores.{backend}.{module}")

    if side == "adk":  # its services, and the drivers its engines load on first use
        for module in ("google.adk.sessions", "google.adk.sessions.sqlite_session_service", "aiosqlite",
                       "sqlalchemy.dialects.postgresql.psycopg", "sqlalchemy.ext.asyncio"):
            importlib.import_module(module)
    print(f"{asyncio.run(_load(side, kind, url, app, user, session_id)):.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
