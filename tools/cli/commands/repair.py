"""`chronicle rewind` and `chronicle fork`: take a session back before a bad turn, or branch it.

Both only append: a rewind is one recorded event (the rewound turns stay in the log, marked in
`chronicle history`, and rewinding the rewind's own invocation undoes it); a fork is a new
session whose history is a copy of the source's up to a point.
"""

from __future__ import annotations

import argparse
import difflib
from typing import TYPE_CHECKING, Any, Callable

from domain.errors import InvocationNotFoundError
from tools.cli.commands import summary
from tools.cli.commands.common import CliError, add_session_arguments, expand_invocation, find_session, open_store_for, run_async
from tools.cli.output import Output, short

if TYPE_CHECKING:
    from runtime.stores import CatalogRow, Store


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    r = sub.add_parser(
        "rewind",
        parents=[common()],
        help=summary("rewind"),
        description="Take a session back to just before an invocation: its state (the initial state "
        "included) and its artifact files become what they were then, and the later turns are hidden "
        "from the session and the model. Nothing is deleted: the rewind is one recorded event, the "
        "rewound turns stay in the log (marked in `chronicle history`), and rewinding the rewind's own "
        "invocation undoes it. app: and user: state are shared and are not rolled back.",
    )
    add_session_arguments(r)
    r.add_argument("--before", required=True, metavar="INVOCATION",
                   help="the first invocation to take back (its id, or a unique prefix of it)")
    r.set_defaults(func=run_rewind)

    f = sub.add_parser(
        "fork",
        parents=[common()],
        help=summary("fork"),
        description="Start a new session whose history is this one's — all of it, or up to just before "
        "an invocation — to try another path. The source is untouched; the fork records where it "
        "came from.",
    )
    add_session_arguments(f)
    f.add_argument("--at", metavar="INVOCATION",
                   help="copy the history before this invocation (id or unique prefix; default: all)")
    f.add_argument("--new-id", metavar="ID", help="the new session's id (default: a random uuid)")
    f.set_defaults(func=run_fork)


def _invocation_hint(store: Store, row: CatalogRow, invocation_id: str) -> str:
    from runtime.log_reader import LogReader

    known = LogReader(store).invocation_ids(row)
    if invocation_id in known:
        return (" That invocation was taken back by a rewind (it is hidden): pick one still in the session, "
                "or rewind the rewind's own invocation to bring it back.")
    close = difflib.get_close_matches(invocation_id, known, n=3, cutoff=0.5)
    if close:
        return f" Did you mean: {', '.join(close)}?"
    return f" Its invocations: {', '.join(known[-5:])}" + (" (the last five)" if len(known) > 5 else "") if known else ""


def run_rewind(args: argparse.Namespace, out: Output) -> int:
    store = open_store_for(args)
    try:
        row = find_session(store, args.session, args.app, args.user)
        if row.deleted:
            raise CliError(f"Session {row.session_id!r} was deleted; a deleted session cannot be rewound.")
        args.before = expand_invocation(store, row, args.before)
        try:
            marker, restored = run_async(_rewind(store, row, args.before))
        except InvocationNotFoundError as e:
            raise CliError(str(e) + _invocation_hint(store, row, args.before)) from None
    finally:
        store.close()
    if out.json_mode:
        out.json({"session_id": row.session_id, "app_name": row.app_name, "user_id": row.user_id,
                  "marker": marker.to_json_dict(), "artifacts_restored": restored})
        return 0
    out.line(f"rewound session {row.session_id} to before invocation {args.before}")
    out.line(f"  rewind event {marker.id} (invocation {marker.invocation_id}; rewind that invocation to undo)")
    delta = marker.actions.state_delta
    if delta:
        out.line("  state restored: " + ", ".join(f"{k}={short(v, 40)}" for k, v in delta.items()))
    for name, version in restored.items():
        out.line(f"  artifact {name}: " + ("deleted (created after that point)" if version is None else f"restored as v{version}"))
    return 0


async def _rewind(store: Store, row: CatalogRow, before: str) -> tuple[Any, dict[str, Any]]:
    """The session's files, then its one-append rewind, as the Runner does."""
    from runtime.artifacts import LogArtifactService
    from runtime.rewind import rewind_with_files
    from runtime.sessions import LogSessionService

    artifacts = LogArtifactService(store)
    try:
        return await rewind_with_files(
            LogSessionService(store), artifacts,
            app_name=row.app_name, user_id=row.user_id, session_id=row.session_id, rewind_before_invocation_id=before,
        )
    finally:
        await artifacts.close()


def run_fork(args: argparse.Namespace, out: Output) -> int:
    store = open_store_for(args)
    try:
        from runtime.sessions import LogSessionService

        row = find_session(store, args.session, args.app, args.user)
        service = LogSessionService(store)
        args.at = expand_invocation(store, row, args.at)
        try:
            fork = run_async(service.fork_session(
                app_name=row.app_name, user_id=row.user_id, session_id=row.session_id,
                at_invocation_id=args.at, new_session_id=args.new_id,
            ))
        except InvocationNotFoundError as e:
            raise CliError(str(e) + _invocation_hint(store, row, args.at or "")) from None
    finally:
        store.close()
    if out.json_mode:
        out.json({"session_id": fork.id, "app_name": fork.app_name, "user_id": fork.user_id,
                  "source_session_id": row.session_id, "at_invocation_id": args.at, "state": fork.state})
        return 0
    at = f" before invocation {args.at}" if args.at else ""
    out.line(f"forked session {row.session_id}{at} into new session {fork.id} (app {fork.app_name}, user {fork.user_id})")
    out.note(f"see it with: chronicle history {fork.id}")
    return 0
