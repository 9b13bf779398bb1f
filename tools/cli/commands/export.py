"""`chronicle export`: a session as raw stored events (JSONL), a Markdown transcript, or ADK session JSON."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any, Callable, Iterator, TextIO

from tools.cli.commands import summary
from tools.cli.commands.common import CliError, EXIT_USAGE, find_session, open_store_for, run_async
from tools.cli.output import Output


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "export",
        parents=[common(json_flag=False)],
        help=summary("export"),
        description="Export a session. jsonl: every stored event of its log, as stored (one JSON object "
        "a line: log id, version, topic, payload) — what `verify` checks. markdown: a transcript for "
        "people, rewound turns marked. adk: the session as google-adk's Session JSON (camelCase), "
        "rewound events left out unless --include-rewound.",
    )
    p.add_argument("session", nargs="?", metavar="SESSION", help="the session id (see `chronicle sessions`)")
    p.add_argument("--app", help="the session's app, when the id alone is ambiguous")
    p.add_argument("--user", help="the session's user, when the id alone is ambiguous")
    p.add_argument("--format", "-f", choices=["jsonl", "markdown", "adk"], default="jsonl", help="default: jsonl")
    p.add_argument("--all", action="store_true", help="jsonl of every stored event of the store (no SESSION)")
    p.add_argument("--include-rewound", action="store_true", help="adk: keep events a rewind hid")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of standard output")
    p.set_defaults(func=run)


@contextlib.contextmanager
def _target(path: str | None) -> Iterator[TextIO]:
    if path is None:
        yield sys.stdout
        return
    with open(path, "w", encoding="utf-8") as f:
        yield f


def run(args: argparse.Namespace, out: Output) -> int:
    from runtime.operations import export
    from runtime.operations.history import load_history

    if args.all == bool(args.session):
        raise CliError("Name a SESSION to export, or pass --all (with --format jsonl) for the whole store.", EXIT_USAGE)
    if args.all and args.format != "jsonl":
        raise CliError("--all exports the whole store as JSONL only; drop --format or use --format jsonl.", EXIT_USAGE)
    store = open_store_for(args)
    count = 0
    try:
        with _target(args.output) as target:
            if args.all:
                for line in export.store_jsonl_lines(store):
                    target.write(line + "\n")
                    count += 1
            else:
                row = find_session(store, args.session, args.app, args.user)
                if args.format == "jsonl":
                    for line in export.jsonl_lines(store, row.log_id):
                        target.write(line + "\n")
                        count += 1
                elif args.format == "markdown":
                    target.write(export.markdown(load_history(store, row)))
                else:
                    if row.deleted:
                        raise CliError(f"Session {row.session_id!r} was deleted; export its log with --format jsonl.")
                    from runtime.sessions import LogSessionService  # ADK's Session: the event model

                    service = LogSessionService(store)
                    session = run_async(service.get_session(
                        app_name=row.app_name, user_id=row.user_id, session_id=row.session_id,
                    ))
                    assert session is not None
                    if not args.include_rewound:
                        session.events = session.filter_events()
                    target.write(_dumps(export.adk_session(session)) + "\n")
    finally:
        store.close()
    if args.output:
        what = f"{count} events" if args.format == "jsonl" else args.format
        out.note(f"wrote {what} to {args.output}")
    return 0


def _dumps(value: Any) -> str:
    import json

    return json.dumps(value, indent=2, ensure_ascii=False)
