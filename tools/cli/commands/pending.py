"""`chronicle pending`: the invocations waiting for a person — a confirmation, a credential, an
input, or another long-running call's result — across the store's sessions.

Each session's log is folded with ``projections.pending`` (the same fold the runtime checks
answers with), so what this lists is exactly what a client may still answer."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Callable

from projections.pending import PendingRequest, open_requests
from tools.cli.commands.common import jsonable, open_store_for
from tools.cli.output import Output, utc

if TYPE_CHECKING:
    from runtime.stores import Store


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "pending",
        parents=[common()],
        help="invocations waiting for a person (confirmations, credentials, inputs)",
        description="List the requests still waiting for an answer: app, user, session, invocation, "
        "what is asked, by which agent and tool, and since when (oldest first).",
    )
    p.add_argument("--app", help="only this app's sessions")
    p.add_argument("--user", help="only this user's sessions")
    p.set_defaults(func=run)


def pending_requests(store: Store, app: str | None = None, user: str | None = None) -> list[tuple[Any, PendingRequest]]:
    """(catalog row, request) for every open request of the store's live sessions, oldest first."""
    from domain.rewind_ranges import live_events  # the log's model: not for every command
    from domain.session_log import RECORDED_TOPICS
    from runtime.sessions.service import parse_recorded_state

    found = []
    for row in store.recorder.select_catalog(app, user):
        if row.deleted:
            continue
        events = live_events([
            parse_recorded_state(state)
            for _, topic, state in store.recorder.select_rows(row.log_id)
            if topic in RECORDED_TOPICS
        ])
        found += [(row, request) for request in open_requests(events).values()]
    return sorted(found, key=lambda item: item[1].since)


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
