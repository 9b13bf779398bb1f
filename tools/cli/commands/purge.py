"""`chronicle purge`: remove a user's or a session's data for good (retention, right to be forgotten)."""

from __future__ import annotations

import argparse
from typing import Any, Callable

from runtime.log_reader import LogReader
from tools.cli.commands import summary
from tools.cli.commands.common import EXIT_USAGE, CliError, find_session, open_store_for
from tools.cli.output import Output


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "purge",
        parents=[common()],
        help=summary("purge"),
        description="Permanently delete a user's sessions in an app (--user with --app), or one session "
        "and the forks made from it (--session): their events, snapshots, catalog rows, artifact logs "
        "and the artifact bytes nothing else uses, their memory index entries and, for a user, their "
        "user: state. Read models are rebuilt from what remains. The purge is recorded — by whom, why, "
        "which sessions and the last link of each chain — in the store's purge audit log, and every "
        "remaining chain still verifies. Without --yes nothing is deleted: the command only says what "
        "would be.",
    )
    p.add_argument("--app", help="the app (required to purge a user)")
    p.add_argument("--user", help="purge every session of this user in --app (with --session: the session's user)")
    p.add_argument("--session", help="purge this session and the forks made from it")
    p.add_argument("--by", help="who runs the purge, for the audit log (default: the OS user)")
    p.add_argument("--reason", default="", help="why, for the audit log (e.g. a ticket number)")
    p.add_argument("--yes", action="store_true", help="really destroy the data (without it: a dry run)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    from runtime.operations.purge import plan_purge, purge

    if not args.user and not args.session:
        raise CliError("Say what to purge: --user USER --app APP, or --session SESSION.", EXIT_USAGE)
    store = open_store_for(args)
    try:
        if args.session:
            row = find_session(store, args.session, args.app, args.user)
            target = {"app_name": row.app_name, "user_id": row.user_id, "session_id": row.session_id}
        else:
            if not args.app:
                apps = sorted({r.app_name for r in LogReader(store).sessions(None, args.user)})
                raise CliError(f"Name the app with --app: user {args.user!r} has sessions in "
                               + (", ".join(apps) if apps else "no app") + ".")
            target = {"app_name": args.app, "user_id": args.user, "session_id": None}
        plan = plan_purge(store, target["app_name"], user_id=target["user_id"], session_id=target["session_id"])
        if not plan.sessions and not plan.artifact_logs and plan.memory_log is None:
            raise CliError(f"Nothing to purge: user {args.user!r} has no data in app {args.app!r}.")
        if not args.yes:
            if out.json_mode:
                out.json({"dry_run": True, "scope": plan.scope, "sessions": [s.manifest() for s in plan.sessions],
                          "artifact_logs": len(plan.artifact_logs), "blobs": len(plan.unreferenced_blobs)})
            else:
                for line in plan.describe():
                    out.line(line)
            raise CliError("Nothing was deleted. Run the same command with --yes to purge.")
        steps = out.progress("purging", total=3)
        with steps:
            result = purge(store, target["app_name"], user_id=target["user_id"], session_id=target["session_id"],
                           by=args.by, reason=args.reason, progress=lambda step: steps.advance())
    finally:
        store.close()
    if out.json_mode:
        out.json({"scope": plan.scope, "by": result.by, "reason": result.reason, "purged_time": result.purged_time,
                  "sessions": [s.manifest() for s in result.plan.sessions], "counts": result.counts,
                  "audit_version": result.audit_version, "rebuilt": result.rebuilt, "dropped": result.dropped})
        return 0
    what = f"session {plan.session_id}" if plan.session_id else f"user {plan.user_id}"
    out.line(f"purged {what} of app {plan.app_name}: " + ", ".join(s.row.session_id for s in result.plan.sessions))
    out.table(["removed", "rows"], [[k.replace("_", " "), v] for k, v in result.counts.items()], right=[1])
    out.line(f"recorded as event {result.audit_version} of the purge audit log, by {result.by}"
             + (f" ({result.reason})" if result.reason else ""))
    out.line("read models rebuilt: " + ", ".join(result.rebuilt)
             + (f"; dropped (their owners refold them): {', '.join(result.dropped)}" if result.dropped else ""))
    return 0
