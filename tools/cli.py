"""The `chronicle` command line."""

from __future__ import annotations

import argparse
import os
import sys

from domain.errors import ChronicleError
from runtime.stores import DEFAULT_STORE_URL


def store_url(args: argparse.Namespace) -> str:
    return args.store or os.environ.get("CHRONICLE_STORE") or DEFAULT_STORE_URL


def cmd_demo(args: argparse.Namespace) -> int:
    from tools.demo import run_demo

    run_demo(store_url(args))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    kinds = args.stores.split(",") if args.stores else None
    if args.what == "sessions":
        from tools.bench_sessions import run

        run(kinds, runs=args.runs, quick=args.quick, postgres_url=args.postgres)
    elif args.what == "runtime":
        from tools.bench_runtime import main as run_runtime

        run_runtime(kinds=kinds, runs=args.runs, quick=args.quick, postgres_url=args.postgres)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chronicle",
        description="Chronicle: an event-sourced agent runtime. Inspect, replay and repair conversations.",
    )
    parser.add_argument(
        "--store",
        help=f"store URL: memory://, sqlite:///path.db or postgresql://user@host:port/db "
        f"(default: $CHRONICLE_STORE or {DEFAULT_STORE_URL})",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="run a short agent conversation and print its timeline")
    demo.set_defaults(func=cmd_demo)

    bench = sub.add_parser("bench", help="measure Chronicle's figures on this machine")
    bench.add_argument("what", choices=["sessions", "runtime"], help="which benchmark")
    bench.add_argument("--stores", help="comma-separated: memory,sqlite,postgresql (default: all)")
    bench.add_argument("--runs", type=int, default=3, help="runs per figure; the median is reported")
    bench.add_argument("--quick", action="store_true", help="smaller workloads, for a smoke test")
    bench.add_argument("--postgres", help="use this PostgreSQL URL instead of starting a server")
    bench.set_defaults(func=cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ChronicleError as e:
        print(f"chronicle: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
