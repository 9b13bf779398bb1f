"""Side by side with an older commit: `python -m tools.bench.compare REV [--store KIND] [--measure appends|load]`.

The host this project is measured on changes speed from one minute to the next, so a figure
measured today cannot be set against one measured this morning. This runs the sessions bench's
appends (2,000 events, one writer) or full loads in rounds that alternate between commit REV and
this checkout, each run in a fresh process on a fresh store, and prints both medians and
their ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from tools.bench.common import bench_stores

ROOT = Path(__file__).resolve().parents[2]

_RUN = """
import asyncio, statistics
try:
    from tools.bench.sessions import _append_run, _load_ms
except ImportError:  # a commit from before the benchmarks were one package
    from tools.bench_sessions import _append_run, _load_ms
async def main():
    rate, _, service, key = await _append_run({url!r}, 2000)
    figure = rate if {measure!r} == "appends" else statistics.median([await _load_ms(service, key, None) for _ in range(3)])
    await service.close()
    print(figure)
asyncio.run(main())
"""


def compare(rev: str, kind: str, measure: str, rounds: int) -> str:
    with ExitStack() as stack:
        directory = stack.enter_context(tempfile.TemporaryDirectory(prefix="chronicle-compare-"))
        tree = f"{directory}/{rev}"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", tree, rev], check=True)
        stack.callback(subprocess.run, ["git", "-C", str(ROOT), "worktree", "remove", "--force", tree])
        stores = stack.enter_context(bench_stores([kind]))
        figures: dict[str, list[float]] = {rev: [], "this checkout": []}
        for n in range(rounds):
            order = [(rev, tree), ("this checkout", str(ROOT))]
            for name, path in order if n % 2 else reversed(order):
                out = subprocess.run(
                    [sys.executable, "-c", _RUN.format(url=stores.fresh(kind), measure=measure)],
                    capture_output=True, text=True, cwd=directory, env={**os.environ, "PYTHONPATH": path},
                )
                if out.returncode != 0:
                    raise SystemExit(f"{name}: {out.stderr.strip()[-2000:]}")
                figures[name].append(float(out.stdout))
    unit = "/s" if measure == "appends" else " ms"
    old, new = statistics.median(figures[rev]), statistics.median(figures["this checkout"])
    lines = [f"{measure} on {kind}, {rounds} interleaved rounds (medians)"]
    for name, values in figures.items():
        lines.append(f"  {name:>14}: {statistics.median(values):,.1f}{unit}   runs: {', '.join(f'{v:,.1f}' for v in values)}")
    lines.append(f"  this checkout ÷ {rev}: {new / old:.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.bench.compare", description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the commit to compare with (a worktree of it is made and removed)")
    parser.add_argument("--store", default="sqlite", choices=["memory", "sqlite", "postgresql"])
    parser.add_argument("--measure", default="appends", choices=["appends", "load"])
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args(argv)
    print(compare(args.rev, args.store, args.measure, args.rounds))


if __name__ == "__main__":
    main()
