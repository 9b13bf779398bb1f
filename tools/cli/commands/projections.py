"""`chronicle projections`: the read models folded from the log — how far behind they are, and rebuilding them."""

from __future__ import annotations

import argparse
from typing import Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import CliError, open_store_for
from tools.cli.output import Output


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "projections",
        help=summary("projections"),
        description="The read models Chronicle folds from the log (scoped_state: app:/user: state; "
        "artifacts: artifact versions; analytics), and any your code added. A read model records its "
        "position in the log with its rows; its lag is how many stored events it has not folded yet.",
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    status = actions.add_parser("status", parents=[common()], help="position and lag of every read model")
    status.set_defaults(func=run_status)
    catch = actions.add_parser("catch-up", parents=[common()], help="fold the events the read models have not seen")
    catch.set_defaults(func=run_catch_up)
    rebuild = actions.add_parser(
        "rebuild", parents=[common()],
        help="drop a read model's rows and fold the whole log again",
        description="Drop the named read models' rows and fold the whole log again, showing progress. "
        "Readers see the rows grow back; appends go on meanwhile.",
    )
    rebuild.add_argument("names", nargs="*", metavar="NAME", help="read models to rebuild (default: all built-in)")
    rebuild.set_defaults(func=run_rebuild)


def _status(store: Any) -> list[dict[str, Any]]:
    from runtime.read_models import Projector, storage_for

    projector = Projector(store)
    end = projector.runner(projector.names[0]).source.max_position()
    storage = storage_for(store)
    names = list(dict.fromkeys([*projector.names, *storage.names()]))
    rows = []
    for name in names:
        position = storage.position(name)
        rows.append({"name": name, "position": position, "log_end": end, "lag": max(end - position, 0),
                     "builtin": name in projector.names})
    return rows


def run_status(args: argparse.Namespace, out: Output) -> int:
    store = open_store_for(args)
    try:
        rows = _status(store)
    finally:
        store.close()
    if out.json_mode:
        out.json(rows)
        return 0
    table = [[r["name"], f"{r['position']:,}", f"{r['log_end']:,}", f"{r['lag']:,}",
              "up to date" if not r["lag"] else ("never folded" if not r["position"] else "behind")]
             for r in rows]
    out.table(["read model", "position", "log end", "lag (events)", "state"], table, right=[1, 2, 3])
    if any(r["lag"] for r in rows):
        out.note("fold what they miss with `chronicle projections catch-up`")
    return 0


def run_catch_up(args: argparse.Namespace, out: Output) -> int:
    from runtime.read_models import Projector
    from tools.cli.commands.folding import catch_up

    store = open_store_for(args)
    try:
        projector = Projector(store)
        folded = {name: catch_up(out, [projector.runner(name)]) for name in projector.names}
        rows = _status(store)
    finally:
        store.close()
    if out.json_mode:
        out.json({"folded": folded, "status": rows})
        return 0
    for name, n in folded.items():
        out.line(f"{name}: folded {n:,} events")
    return 0


def run_rebuild(args: argparse.Namespace, out: Output) -> int:
    from runtime.read_models import Projector
    from tools.cli.commands.folding import rebuild

    store = open_store_for(args)
    try:
        projector = Projector(store)
        names = args.names or projector.names
        unknown = [n for n in names if n not in projector.names]
        if unknown:
            raise CliError(
                f"Cannot rebuild {', '.join(unknown)}: the command line knows how to fold "
                f"{', '.join(projector.names)}. Rebuild your own read models from your code "
                "(Projector.add(...).rebuild())."
            )
        folded = {name: rebuild(out, projector.runner(name)) for name in names}
    finally:
        store.close()
    if out.json_mode:
        out.json({"rebuilt": folded})
        return 0
    for name, n in folded.items():
        out.line(f"rebuilt {name}: folded {n:,} events")
    return 0
