"""`chronicle bench`: measure Chronicle's figures on this machine (the benchmarks live in tools/bench/)."""

from __future__ import annotations

import argparse
import importlib
import statistics
from typing import Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import CliError
from tools.cli.output import Output

WHAT = {
    "sessions": "appends, loads and listing of the session service",
    "runtime": "Runner turns per second over a long session (flat, not growing with history)",
    "artifacts": "artifact saves and loads, memory search",
    "projections": "rebuild rates, state_at latency, worker lag",
    "rewind": "rewinding and forking long sessions",
    "adk": "the sessions workload on google-adk's own services beside Chronicle's, as ratios "
           "(--runner: stock google-adk's Runner on ADK's services and on Chronicle's bridge)",
    "serve": "/run_sse turns per second behind chronicle serve and adk api_server, 1 and 16 clients",
    "workflow": "a 50-node workflow on google-adk's Workflow beside Chronicle's, as ratios; resume after a cut",
    "seal": "sealing a store (first, nothing new, after a few sessions) and checking it against its seals",
    "eval": "cases per second of a 100-case eval set on google-adk's evaluation beside Chronicle's, as a ratio",
    "cli": "start-up of `chronicle --help` and `chronicle sessions` beside `adk --help`, as ratios",
    "scale": "how cost grows: N sessions of 6 events over 50 users plus one of L events; the viewer's pages, "
             "history, verify and pending of the long session, whole-store verify, snapshots (--n, --l)",
}


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "bench",
        parents=[common()],
        help=summary("bench"),
        description="Run one of Chronicle's benchmarks on fresh stores and print its table: "
        + "; ".join(f"{k}: {v}" for k, v in WHAT.items()) + ". PostgreSQL runs start their own server "
        "unless --postgres names one.",
    )
    p.add_argument("what", choices=list(WHAT), help="which benchmark")
    p.add_argument("--stores", help="comma-separated: memory,sqlite,postgresql (artifacts also: file); default all")
    p.add_argument("--runs", type=int, default=3, help="runs per figure; the median is reported (default 3)")
    p.add_argument("--quick", action="store_true", help="smaller workloads, for a smoke test")
    p.add_argument("--postgres", metavar="URL", help="use this PostgreSQL database instead of starting a server")
    p.add_argument("--runner", action="store_true",
                   help="with adk: turns of stock google-adk's Runner on its own services and on Chronicle's bridge")
    p.add_argument("--n", type=int, help="with scale: the short sessions (default 1,000)")
    p.add_argument("--l", type=int, help="with scale: the long session's events (default 1,000)")
    p.add_argument("--markdown", action="store_true", help="print the figures as a markdown table (as in docs/benchmarks.md)")
    p.set_defaults(func=run)



def run(args: argparse.Namespace, out: Output) -> int:
    kinds = [k.strip() for k in args.stores.split(",")] if args.stores else None
    if args.runs < 1:
        raise CliError("--runs must be at least 1.")
    if args.runner and args.what != "adk":
        raise CliError("--runner goes with `chronicle bench adk`.")
    if (args.n is not None or args.l is not None) and args.what != "scale":
        raise CliError("--n and --l go with `chronicle bench scale`.")
    if any(size is not None and size < 1 for size in (args.n, args.l)):
        raise CliError("--n and --l must be at least 1.")
    sizes = {"n": args.n, "l": args.l} if args.what == "scale" else {}
    # Imported only now: the benchmarks import the whole runtime, which no other command should pay for.
    module = importlib.import_module(f"tools.bench.{'adk_runner' if args.runner else args.what}")
    known = list(getattr(module, "KINDS", ["memory", "sqlite", "postgresql"]))
    unknown = [k for k in kinds or [] if k not in known]
    if unknown:
        raise CliError(f"bench {args.what}: unknown store kind(s) {', '.join(unknown)}; choose from {', '.join(known)}.")
    if args.what == "runtime":
        results = _runtime(module, kinds, args)
        if out.json_mode:  # each store's figures as numbers, for scripts
            out.json(results)
            return 0
        table = module.table(results)
    else:
        try:
            table = module.run(kinds, runs=args.runs, quick=args.quick, postgres_url=args.postgres, **sizes)
        except (ValueError, KeyError) as e:  # an unknown store kind, said by the benchmark
            raise CliError(f"bench {args.what}: {e}") from None
        except ImportError as e:  # bench adk or workflow without google-adk: the message says how to install it
            raise CliError(str(e)) from None
        if out.json_mode:
            out.json({"benchmark": args.what, "title": table.title, "headers": table.headers, "rows": table.rows})
            return 0
    out.line(table.markdown() if args.markdown else table.text())
    return 0


def _runtime(module: Any, kinds: list[str] | None, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The runtime benchmark takes store URLs: one fresh store per kind and run; the median run per store."""
    from tools.bench.common import bench_stores

    kinds = kinds or ["memory", "sqlite", "postgresql"]
    turns = 50 if args.quick else 200
    picked = []
    with bench_stores(kinds, args.postgres) as stores:
        for kind in kinds:
            runs = [module.run_benchmark([stores.fresh(kind)], turns=turns)[0] for _ in range(args.runs)]
            median = statistics.median_low([r["turns_per_s"] for r in runs])
            best = next(r for r in runs if r["turns_per_s"] == median)
            picked.append({**best, "kind": kind, "runs": args.runs})
    return picked
