"""`chronicle analytics`: what the agents did, as tables per app, agent, tool, workflow node, user and day.

The figures are the analytics projection's (see ``projections.analytics`` for what each means);
the command first folds whatever the log gained since the projection last looked.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import EXIT_USAGE, CliError, open_store_for
from tools.cli.output import Output

TABLES = ["apps", "agents", "tools", "nodes", "users", "days"]


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "analytics",
        parents=[common()],
        help=summary("analytics"),
        description="Sessions, invocations, events, LLM calls and errors, tool calls and errors, tokens "
        "and latencies, folded from the log: per app, per agent, per tool, per workflow node (runs, failures, "
        "retries, latency), per user and per UTC day.",
    )
    p.add_argument("--app", help="only this app")
    p.add_argument("--by", default=",".join(TABLES), metavar="TABLES",
                   help=f"which tables, comma-separated: {', '.join(TABLES)} (default: all)")
    p.add_argument("--top", type=int, default=20, metavar="N", help="rows per table (default 20)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    from projections.analytics import ANALYTICS
    from runtime.read_models import runner_for
    from tools.cli.commands.folding import catch_up

    wanted = [t.strip() for t in args.by.split(",") if t.strip()]
    unknown = [t for t in wanted if t not in _TABLES]
    if unknown or not wanted:
        raise CliError(f"--by: no table {', '.join(map(repr, unknown)) or 'named'}; choose from {', '.join(TABLES)}.", EXIT_USAGE)
    store = open_store_for(args)
    try:
        runner = runner_for(store, ANALYTICS)
        catch_up(out, [runner])
        views = {key: view for (_, key), view in runner.views().items() if args.app in (None, key)}
    finally:
        store.close()
    if out.json_mode:
        out.json({app: {k: v for k, v in view.to_json().items() if k != "cursors"} for app, view in sorted(views.items())})
        return 0
    if not views:
        out.note(f"no analytics yet for app {args.app!r}" if args.app else "no analytics yet: the log is empty")
        return 0
    first = True
    for table in wanted:
        headers, body, right = _TABLES[table](views, args.top)
        if not body:
            continue
        if not first:
            out.line()
        first = False
        out.table(headers, body, title=f"per {table[:-1]}", right=right)
    return 0


def _ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:,.0f} ms" if value >= 10 else f"{value:.1f} ms"


def _apps(views: dict[str, Any], top: int) -> tuple[list[str], list[list[Any]], list[int]]:
    headers = ["app", "sessions", "invocations", "events", "llm calls", "llm errors", "tool calls", "tool errors",
               "tokens", "invocation p50", "p95"]
    body = []
    for app, v in sorted(views.items()):
        t = v.totals
        body.append([app, t.sessions, t.invocations, t.events, t.llm_calls, t.llm_errors, t.tool_calls,
                     t.tool_errors, t.total_tokens, _ms(v.invocation_latency.quantile_ms(0.5)),
                     _ms(v.invocation_latency.quantile_ms(0.95))])
    return headers, body[:top], list(range(1, 11))


def _agents(views: dict[str, Any], top: int) -> tuple[list[str], list[list[Any]], list[int]]:
    headers = ["app", "agent", "events", "llm calls", "llm errors", "tool calls", "tool errors", "tokens",
               "llm mean", "llm p95", "llm max"]
    body = [
        [app, name, a.events, a.llm_calls, a.llm_errors, a.tool_calls, a.tool_errors, a.total_tokens,
         _ms(a.llm_latency.mean_ms), _ms(a.llm_latency.quantile_ms(0.95)), _ms(a.llm_latency.max_ms or None)]
        for app, v in sorted(views.items()) for name, a in v.agents.items()
    ]
    body.sort(key=lambda r: -r[2])
    return headers, body[:top], list(range(2, 11))


def _tools(views: dict[str, Any], top: int) -> tuple[list[str], list[list[Any]], list[int]]:
    headers = ["app", "tool", "calls", "errors", "error rate", "mean", "p95", "max"]
    body = [
        [app, name, s.calls, s.errors, f"{s.errors / s.calls:.0%}" if s.calls else "–",
         _ms(s.latency.mean_ms), _ms(s.latency.quantile_ms(0.95)), _ms(s.latency.max_ms or None)]
        for app, v in sorted(views.items()) for name, s in v.tools.items()
    ]
    body.sort(key=lambda r: -r[2])
    return headers, body[:top], list(range(2, 8))


def _nodes(views: dict[str, Any], top: int) -> tuple[list[str], list[list[Any]], list[int]]:
    headers = ["app", "node", "runs", "completed", "failures", "retries", "mean", "p95", "max"]
    body = [
        [app, name, s.runs, s.completed, s.failures, s.retries, _ms(s.latency.mean_ms),
         _ms(s.latency.quantile_ms(0.95)), _ms(s.latency.max_ms or None)]
        for app, v in sorted(views.items()) for name, s in v.nodes.items()
    ]
    body.sort(key=lambda r: -r[2])
    return headers, body[:top], list(range(2, 9))


def _counts(key: str, pick: Callable[[Any], dict[str, Any]], order: Callable[[list[Any]], Any]):
    def table(views: dict[str, Any], top: int) -> tuple[list[str], list[list[Any]], list[int]]:
        headers = ["app", key, "sessions", "invocations", "events", "llm calls", "tool calls", "tool errors", "tokens"]
        body = [
            [app, name, c.sessions, c.invocations, c.events, c.llm_calls, c.tool_calls, c.tool_errors, c.total_tokens]
            for app, v in sorted(views.items()) for name, c in pick(v).items()
        ]
        body.sort(key=order)
        return headers, body[:top], list(range(2, 9))

    return table


_TABLES = {
    "apps": _apps,
    "agents": _agents,
    "tools": _tools,
    "nodes": _nodes,
    "users": _counts("user", lambda v: v.users, lambda r: (-r[4], r[1])),
    "days": _counts("day", lambda v: v.days, lambda r: (r[0], r[1])),
}
