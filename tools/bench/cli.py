"""`chronicle bench cli`: how long the command line takes to start, beside google-adk's `adk`.

Each round runs, in a fresh process each, `python -c pass`, `adk --help`, `chronicle --help` and
`chronicle sessions` (on a small SQLite store made first), each round starting one command further
along, so that no command always runs first or right after another. A figure is the median over the
rounds, and a ratio is the median of each round's ratio to `adk --help` (with the middle half of those
ratios beside it), so that a busy moment on a shared machine weighs on both sides of a ratio alike.
`python -c pass` is the floor no command goes below.

The commands run as installed packages do, from bytecode caches: pip compiled google-adk's when it
installed it, and an untimed first round writes the others' (into the run's temporary directory, so the
tree is left as it was). With PYTHONDONTWRITEBYTECODE set, as on some machines, every run would compile
Chronicle's sources again while adk's stay compiled.

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
ROUNDS_PER_RUN = 10  # start-up takes a tenth of a second: many short samples, not a few long ones


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


def _installed(tmp: str) -> dict[str, str]:
    """The commands' environment: bytecode caches read and written, under ``tmp``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
    return env


def _seconds(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
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
        env = _installed(tmp)
        for argv in commands.values():  # untimed: writes the bytecode caches, reads the files into memory
            _seconds(argv, env)
        rounds = max(1, runs) * (1 if quick else ROUNDS_PER_RUN)
        names = list(commands)
        times: dict[str, list[float]] = {name: [] for name in names}
        for i in range(rounds):
            for name in names[i % len(names):] + names[: i % len(names)]:
                times[name].append(_seconds(commands[name], env))
    return _table(times, rounds)


def _table(times: dict[str, list[float]], rounds: int) -> Table:
    adk = times["adk --help"]
    rows: list[list[Any]] = []
    for name, seconds in times.items():
        ratios = [s / a for s, a in zip(seconds, adk)]
        low, _, high = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
        target = "≤ 1.2×" if name.startswith("chronicle") else ""
        rows.append([name, f"{statistics.median(seconds) * 1000:.0f}", f"{min(seconds) * 1000:.0f}",
                     f"{statistics.median(ratios):.2f}×", f"{low:.2f}–{high:.2f}×", target])
    return Table(
        f"Command-line start-up: median of {rounds} interleaved rounds, a fresh process each, from bytecode "
        "caches (ratio: the median of each round's time over adk --help's; the middle half of those ratios)",
        ["command", "median ms", "best ms", "÷ adk --help", "middle half", "target"],
        rows,
    )
