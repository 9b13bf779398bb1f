"""`chronicle workflow SESSION`: a workflow run read from the log — each node's status, input,
output and time, and the graph drawn (Mermaid or DOT) with the path the run took.

The node runs are the fold of ``projections.workflow`` over the session's live events (rewound turns
left out: ``Session.filter_events()``); the edges drawn are the ones the run followed (each
run records the runs that triggered it).
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Callable

from projections.workflow import NodeRun, fold_all, run_edges
from tools.cli.commands import summary
from tools.cli.commands.common import CliError, add_session_arguments, find_session, jsonable, open_store_for, run_async, store_url
from tools.cli.output import Output, short

FORMATS = ["table", "mermaid", "dot"]
COLOURS = {"completed": "#c8f0c8", "failed": "#f6c6c6", "cancelled": "#e0e0e0", "waiting": "#fbe7b0",
           "started": "#cfe0fb", "resumed": "#cfe0fb", "retried": "#fbe7b0"}


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "workflow",
        parents=[common()],
        help=summary("workflow"),
        description="Show the workflow run of a session's invocation (the latest one unless --invocation "
        "names another): every node run with its status, input, output, retries and time, or the graph "
        "of the path the run took, as Mermaid (--format mermaid) or Graphviz DOT (--format dot).",
    )
    add_session_arguments(p)
    p.add_argument("--invocation", metavar="ID", help="the invocation to show (default: the latest workflow run)")
    p.add_argument("--format", choices=FORMATS, default="table", help="table (default), mermaid or dot")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    store = open_store_for(args)
    try:
        row = find_session(store, args.session, args.app, args.user)
    finally:
        store.close()
    events = run_async(_events(store_url(args), row))
    runs = fold_all(events)
    if not runs.invocations:
        raise CliError(f"Session {row.session_id!r} has no workflow runs.")
    invocation = args.invocation or next(reversed(runs.invocations))
    if invocation not in runs.invocations:
        raise CliError(
            f"Invocation {invocation!r} ran no workflow in session {row.session_id!r}; "
            f"workflow invocations: {', '.join(runs.invocations)}."
        )
    nodes = list(runs.invocations[invocation].values())
    if out.json_mode:
        out.json(jsonable({"invocation_id": invocation, "nodes": nodes}))
    elif args.format == "mermaid":
        out.line(mermaid(nodes))
    elif args.format == "dot":
        out.line(dot(nodes))
    else:
        _table(out, invocation, nodes)
    return 0


async def _events(url: str, row: Any) -> list:
    from runtime import session_service_from_url

    sessions = session_service_from_url(url)
    try:
        session = await sessions.get_session(app_name=row.app_name, user_id=row.user_id, session_id=row.session_id)
    finally:
        await sessions.close()
    return session.log_events() if session is not None else []  # log-only facts too (domain.log_only)


def _table(out: Output, invocation: str, nodes: list[NodeRun]) -> None:
    rows = []
    for n in nodes:
        took = f"{n.seconds * 1000:,.1f} ms" if n.seconds is not None else ""
        tries = f"{n.attempts}" if n.attempts > 1 else ""
        result = n.error if n.error and n.status != "completed" else _value(n.output)
        rows.append([n.path, n.status, _value(n.input), result, tries, took])
    out.table(["node", "status", "input", "output / error", "attempts", "time"], rows,
              title=f"workflow run of invocation {invocation}", right=[4, 5])


def _value(value: Any) -> str:
    if hasattr(value, "parts"):  # the user's message (a Content) as a node's input: its text
        value = "".join(p.text or "" for p in value.parts or [] if not p.thought)
    return "" if value is None else short(json.dumps(value, ensure_ascii=False, default=str), 60)


# -- drawing ---------------------------------------------------------------------------------


def _label(n: NodeRun) -> str:
    tail = n.path.split("/", 1)[-1]
    extra = f" x{n.attempts}" if n.attempts > 1 else ""
    return f"{tail}\\n{n.status}{extra}"


def mermaid(nodes: list[NodeRun]) -> str:
    ids = {n.path: f"n{i}" for i, n in enumerate(nodes)} | {"START": "start"}
    lines = ["flowchart TD", "  start((START))"]
    for n in nodes:
        lines.append(f'  {ids[n.path]}["{_label(n).replace(chr(92) + "n", "<br/>")}"]:::{n.status}')
    for source, target, label, dynamic in run_edges(nodes):
        arrow = "-.->" if dynamic else "-->"
        text = f"|{label}|" if label else ""
        lines.append(f"  {ids[source]} {arrow}{text} {ids[target]}")
    for status in sorted({n.status for n in nodes}):
        lines.append(f"  classDef {status} fill:{COLOURS.get(status, '#ffffff')}")
    return "\n".join(lines)


def dot(nodes: list[NodeRun]) -> str:
    lines = ["digraph workflow {", "  rankdir=TB;", '  "START" [shape=circle];']
    for n in nodes:
        colour = COLOURS.get(n.status, "#ffffff")
        lines.append(f'  "{n.path}" [shape=box, style=filled, fillcolor="{colour}", label="{_label(n)}"];')
    for source, target, label, dynamic in run_edges(nodes):
        attributes = [f'label="{label}"'] if label else []
        if dynamic:
            attributes.append("style=dashed")
        attrs = f" [{', '.join(attributes)}]" if attributes else ""
        lines.append(f'  "{source}" -> "{target}"{attrs};')
    lines.append("}")
    return "\n".join(lines)
