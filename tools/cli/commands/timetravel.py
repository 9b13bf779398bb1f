"""`chronicle state-at` and `chronicle diff`: a session's state at any point, and what changed between two.

A point (AT) is written:

  latest             the session now (the default)
  v7 or 7            after the session log's version 7 (1 is its creation)
  event:ID           once the event with this id was recorded (a bare id works too)
  before:INV         just before invocation INV's first event
  after:INV          once invocation INV's last event was recorded
  time:WHEN or @WHEN the last event at or before WHEN (2025-06-01T12:30, an epoch number, 2h, …)
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from typing import TYPE_CHECKING, Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import (
    add_session_arguments, expand_invocation, find_session, jsonable, open_store_for, parse_when,
)
from tools.cli.output import Output, short, utc

# The read models are imported where a command runs, not when the command line starts.
if TYPE_CHECKING:
    from runtime.read_models import At, Diff, StateAt, TimeTravel

POINTS = __doc__.split("A point (AT) is written:", 1)[1]


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "state-at",
        parents=[common()],
        help=summary("state-at"),
        description="Show a session as it was at one point: its own state, the app: and user: state "
        "it saw, and its artifact versions.",
        epilog="AT is one of:" + POINTS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_session_arguments(p)
    p.add_argument("at", nargs="?", default="latest", metavar="AT", help="the point (default: latest)")
    p.set_defaults(func=run_state_at)

    d = sub.add_parser(
        "diff",
        parents=[common()],
        help=summary("diff"),
        description="Every state key and artifact that changed between two points of a session, from "
        "what to what, with each write's version, author and event.",
        epilog="FROM and TO are points:" + POINTS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_session_arguments(d)
    d.add_argument("start", metavar="FROM", help="the earlier point")
    d.add_argument("end", nargs="?", default="latest", metavar="TO", help="the later point (default: latest)")
    d.set_defaults(func=run_diff)


def parse_point(text: str) -> At:
    from runtime.read_models import At

    value = text.strip()
    if value in ("latest", "now", ""):
        return At.latest()
    if re.fullmatch(r"v?\d+", value):
        return At.log_version(int(value.lstrip("v")))
    kind, _, rest = value.partition(":")
    if value.startswith("@"):
        return At.time(parse_when(value[1:]))
    if rest:
        if kind == "event":
            return At.event(rest)
        if kind == "before":
            return At.before(rest)
        if kind == "after":
            return At.after(rest)
        if kind == "time":
            return At.time(parse_when(rest))
    return At.event(value)  # a bare event id


def _travel(
    args: argparse.Namespace, out: Output, *points: At
) -> tuple[Any, TimeTravel, tuple[str, str, str], list[At]]:
    """The store, time travel over it, the session, and the points with short invocation ids
    expanded (``before:``/``after:`` take a unique prefix, as ``rewind`` does)."""
    store = open_store_for(args)
    row = find_session(store, args.session, args.app, args.user)
    points_in_full = [
        dataclasses.replace(p, invocation_id=expand_invocation(store, row, p.invocation_id)) if p.invocation_id else p
        for p in points
    ]
    from runtime.read_models import TimeTravel
    from tools.cli.commands.folding import catch_up

    travel = TimeTravel(store)
    catch_up(out, [travel.scoped, travel.artifacts])
    return store, travel, (row.app_name, row.user_id, row.session_id), points_in_full


def run_state_at(args: argparse.Namespace, out: Output) -> int:
    store, travel, identity, (at,) = _travel(args, out, parse_point(args.at))
    try:
        state = travel.state_at(identity, at)
    finally:
        store.close()
    if out.json_mode:
        out.json(jsonable({**jsonable(state), "at": str(state.at), "session_state": state.session_state}))
        return 0
    out.line(out.style(f"session {state.session_id} at {describe(state)}", "bold"))
    rows = [["state", k, v] for k, v in sorted(state.state.items())]
    rows += [["app", k, v] for k, v in sorted(state.app_state.items())]
    rows += [["user", k, v] for k, v in sorted(state.user_state.items())]
    rows += [["artifact", k, f"v{v}"] for k, v in sorted(state.artifacts.items())]
    rows += [["user artifact", k, f"v{v}"] for k, v in sorted(state.user_artifacts.items())]
    if rows:
        out.table(["scope", "key", "value"], rows, max_width=max(out.width - 40, 40))
    else:
        out.line("(no state, no artifacts)")
    return 0


def describe(state: StateAt) -> str:
    text = f"version {state.version}"
    if state.event_id:
        text += f" (event {state.event_id} by {state.author}, invocation {state.invocation_id})"
    elif state.version == 1:
        text += " (its creation)"
    return text + f", {utc(state.timestamp)} UTC"


def run_diff(args: argparse.Namespace, out: Output) -> int:
    store, travel, identity, (start, end) = _travel(args, out, parse_point(args.start), parse_point(args.end))
    try:
        diff = travel.diff(identity, start, end)
    finally:
        store.close()
    if out.json_mode:
        out.json(diff_json(diff))
        return 0
    out.line(out.style(
        f"session {diff.start.session_id}: {describe(diff.start)}\n  → {describe(diff.end)}; "
        f"{diff.events} events in between", "bold"))
    if not diff.changes:
        out.line("no changes")
        return 0
    label = {"session": "state", "app": "app", "user": "user", "artifact": "artifact", "user_artifact": "user artifact"}
    own = f"{identity[0]}/{identity[1]}/{identity[2]}"
    rows = []
    for c in diff.changes:
        writes = "; ".join(
            f"v{w.version} {w.author or '(genesis)'}" + ("" if w.session == own else f" in {w.session.rsplit('/', 1)[-1]}")
            for w in c.writes
        )
        rows.append([label[c.scope], c.key, _value(c.before), _value(c.after), writes or "–"])
    out.table(["scope", "key", "before", "after", "written by"], rows, max_width=max(out.width // 4, 24))
    return 0


def _value(value: Any) -> str:
    from runtime.read_models import MISSING

    return "(absent)" if value is MISSING else short(value, 200)


def diff_json(diff: Diff) -> dict[str, Any]:
    from runtime.read_models import MISSING

    def value(v: Any) -> dict[str, Any]:
        return {"present": False} if v is MISSING else {"present": True, "value": v}

    return {
        "start": {**jsonable(diff.start), "at": str(diff.start.at)},
        "end": {**jsonable(diff.end), "at": str(diff.end.at)},
        "events": diff.events,
        "changes": [
            {"scope": c.scope, "key": c.key, "before": value(c.before), "after": value(c.after),
             "writes": [jsonable(w) for w in c.writes]}
            for c in diff.changes
        ],
    }
