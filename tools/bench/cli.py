"""`chronicle bench cli`: how long the command line takes to start, beside google-adk's `adk`.

Each round runs, in a fresh process each and in turn, `adk --help`, `chronicle --help` and
`chronicle sessions` (on a small SQLite store made first); a figure is the median over the rounds,
and a ratio is the median of each round's ratio to `adk --help`, so that a busy moment on a shared
machine weighs on both sides of a ratio alike. `python -c pass` is the floor no command goes below.

`adk` is looked up beside this interpreter, then beside $CHRONICLE_ADK_PYTHON, then in
.venv-adk/bin/, then on the PATH.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from tools.bench.common import Table

KINDS = ["sqlite"]
ROUNDS_PER_RUN = 5  # start-up takes a tenth of a second: many short samples, not a few long ones


def find_adk() -> str | None:
    candidates = [os.path.join(os.path.dirname(sys.executable), "adk")]
    if os.environ.get("CHRONICLE_ADK_PYTHON"):
        candidates.append(os.path.join(os.path.dirname(os.environ["CHRONICLE_ADK_PYTHON"]), "adk"))
    candidates.append(os.path.join(".venv-adk", "bin", "adk"))
    found = [c for c in candidates if os.access(c, os.X_OK)]
    return found[0] if found else shutil.which("adk")


async def _make_store(url: str, sessions: int) -> None:
    from runtime.sessions import session_service_from_url

    service = session_service_from_url(url)
    try:
        for i in range(sessions):
            await service.create_session(app_name="bench", user_id=f"user{i % 5}", session_id=f"s{i}",
                                         state={"n": i})
    finally:
        await service.close()


def _seconds(argv: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return seconds


def run(kinds: list[str] | None, *, runs: int = 3, quick: bool = False, postgres_url: str | None = None) -> Table:
    adk = find_adk()
    if adk is None:
        raise ImportError(
            "`chronicle bench cli` times google-adk's `adk --help` beside Chronicle's commands, and no `adk` "
            "was found (beside this Python, $CHRONICLE_ADK_PYTHON, .venv-adk/bin or the PATH). Make its "
            "environment: python -m venv .venv-adk && .venv-adk/bin/pip install -e '.[adk]'"
        )
    chronicle = [sys.executable, "-m", "tools.cli"]
    with tempfile.TemporaryDirectory(prefix="chronicle-bench-cli-") as tmp:
        store = f"sqlite:///{tmp}/cli.db"
        asyncio.run(_make_store(store, 20 if quick else 100))
        commands: dict[str, list[str]] = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "adk --help": [adk, "--help"],
            "chronicle --help": [*chronicle, "--help"],
            "chronicle sessions": [*chronicle, "--store", store, "sessions"],
        }
        rounds = max(1, runs) * (1 if quick else ROUNDS_PER_RUN)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, argv in commands.items():
                times[name].append(_seconds(argv))
    return _table(times, rounds)


def _table(times: dict[str, list[float]], rounds: int) -> Table:
    adk = times["adk --help"]
    rows: list[list[Any]] = []
    for name, seconds in times.items():
        ratio = statistics.median(s / a for s, a in zip(seconds, adk))
        target = "≤ 1.2×" if name.startswith("chronicle") else ""
        rows.append([name, f"{statistics.median(seconds) * 1000:.0f}", f"{min(seconds) * 1000:.0f}",
                     f"{ratio:.2f}×", target])
    return Table(
        f"Command-line start-up: median of {rounds} interleaved rounds, a fresh process each "
        "(ratio: the median of each round's time over adk --help's)",
        ["command", "median ms", "best ms", "÷ adk --help", "target"],
        rows,
    )
