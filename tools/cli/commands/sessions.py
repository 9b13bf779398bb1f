"""`chronicle sessions`: the sessions of the store, newest activity first, filtered by app, user and date."""

from __future__ import annotations

import argparse
from typing import Any, Callable

from runtime.log_reader import LogReader
from tools.cli.commands import summary
from tools.cli.commands.common import open_catalog_for, parse_when
from tools.cli.output import Output, utc


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sessions",
        parents=[common()],
        help=summary("sessions"),
        description="List the store's sessions, most recently active first.",
        epilog="Times: 2025-06-01, 2025-06-01T12:30 (UTC unless a zone is given), an epoch number, "
        "or a time ago (15m, 2h, 3d). --since and --until compare with a session's last activity.",
    )
    p.add_argument("--app", help="only this app's sessions")
    p.add_argument("--user", help="only this user's sessions")
    p.add_argument("--since", metavar="TIME", help="active at or after TIME")
    p.add_argument("--until", metavar="TIME", help="active at or before TIME")
    p.add_argument("--eval-run", metavar="RUN_ID", help="only the sessions of this eval run (`chronicle eval` prints it)")
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--all", action="store_true", help="include deleted sessions")
    shown.add_argument("--deleted", action="store_true", help="only deleted sessions")
    p.add_argument("--limit", type=int, default=0, metavar="N", help="at most N sessions (the newest)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    store = open_catalog_for(args)
    try:
        rows = LogReader(store).sessions(args.app, args.user)
        filtered = args.app is not None or args.user is not None
        empty = not rows and (not filtered or not LogReader(store).sessions())
    finally:
        store.close()
    since = parse_when(args.since) if args.since else None
    until = parse_when(args.until) if args.until else None
    picked = [
        r for r in rows
        if (args.all or r.deleted == args.deleted)
        and (since is None or r.last_update_time >= since)
        and (until is None or r.last_update_time <= until)
        and (args.eval_run is None or _in_eval_run(r.session_id, args.eval_run))
    ]
    picked.sort(key=lambda r: r.last_update_time, reverse=True)
    if args.limit > 0:
        picked = picked[: args.limit]
    if out.json_mode:
        out.json([
            {
                "app_name": r.app_name, "user_id": r.user_id, "session_id": r.session_id, "log_id": str(r.log_id),
                "version": r.version, "created_time": r.created_time, "last_update_time": r.last_update_time,
                "deleted": r.deleted, "state": r.state or {},
            }
            for r in picked
        ])
        return 0
    if not picked:
        where = "".join([f" in app {args.app!r}" if args.app else "", f" of user {args.user!r}" if args.user else "",
                         f" in eval run {args.eval_run!r}" if args.eval_run else ""])
        out.note("the store has no sessions yet; try `chronicle demo`" if empty else f"no sessions match{where}")
        return 0
    headers = ["app", "user", "session", "version", "created (UTC)", "last active (UTC)", "session state"]
    if args.all or args.deleted:
        headers.append("deleted")
    table = []
    for r in picked:
        row = [r.app_name, r.user_id, r.session_id, r.version, utc(r.created_time), utc(r.last_update_time),
               ", ".join(sorted(r.state or {})) or "–"]
        if args.all or args.deleted:
            row.append("deleted" if r.deleted else "")
        table.append(row)
    out.table(headers, table, right=[3], max_width=40)
    out.note(f"{len(picked)} session{'s' if len(picked) != 1 else ''}")
    return 0


def _in_eval_run(session_id: str, run_id: str) -> bool:
    # Imported only when asked: the evaluation package brings the agent runtime with it.
    from runtime.evaluation.compare import in_run

    return in_run(session_id, run_id)
