"""`chronicle pending`: the invocations waiting for a person — a confirmation, a credential, an
input, or another long-running call's result — across the store's sessions.

Read through ``LogReader.pending``: the live events of each session folded with
``projections.pending``, as the Runner checks answers, so what this lists is exactly what a client may
still answer."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Callable

from projections.pending import PendingRequest
from tools.cli.commands import summary
from tools.cli.commands.common import jsonable, open_store_for
from tools.cli.output import Output, utc

if TYPE_CHECKING:
    from runtime.stores import Store


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "pending",
        parents=[common()],
        help=summary("pending"),
        description="List the requests still waiting for an answer: app, user, session, invocation, "
        "what is asked, by which agent and tool, and since when (oldest first).",
    )
    p.add_argument("--app", help="only this app's sessions")
    p.add_argument("--user", help="only this user's sessions")
    p.set_defaults(func=run)


def pending_requests(store: Store, app: str | None = None, user: str | None = None) -> list[tuple[Any, PendingRequest]]:
    """(catalog row, request) for every open request of the store's live sessions, oldest first."""
    from runtime.log_reader import LogReader  # the log's model: not for every command

    return LogReader(store).pending(app, user)


def run(args: argparse.Namespace, out: Output) -> int:
    store = open_store_for(args)
    try:
        found = pending_requests(store, args.app, args.user)
    finally:
        store.close()
    if out.json_mode:
        out.json([
            {"app_name": row.app_name, "user_id": row.user_id, "session_id": row.session_id, **jsonable(request)}
            for row, request in found
        ])
        return 0
    if not found:
        out.note("nothing is waiting for a person")
        return 0
    out.table(
        ["APP", "USER", "SESSION", "INVOCATION", "ASKS", "AGENT", "TOOL", "WHAT", "SINCE (UTC)", "REQUEST ID"],
        [
            (row.app_name, row.user_id, row.session_id, r.invocation_id, r.kind, r.agent, r.tool, r.asks,
             utc(r.since), r.call_id)
            for row, r in found
        ],
    )
    return 0
