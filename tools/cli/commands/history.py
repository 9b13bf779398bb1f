"""`chronicle history`: a session's timeline — invocations, authors, text, tool calls and results,
state changes, artifacts, token usage, workflow node runs — with rewound turns marked.

The history is read by runtime.operations.history (the server's history and export routes read
it there too); this module renders it.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Callable, Iterable

from projections.pending import INVOCATION_ABORTED, KINDS as REQUEST_KINDS, REQUEST_CONFIRMATION, REQUEST_CREDENTIAL
from tools.cli.commands import summary
from tools.cli.commands.common import add_session_arguments, find_session, jsonable, open_store_for
from tools.cli.output import Output, plural, short, utc

if TYPE_CHECKING:
    from projections.timeline import Invocation, NodeStep, Step
    from runtime.operations.history import History, RewindMark


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "history",
        parents=[common()],
        help=summary("history"),
        description="Print a session's timeline: each invocation with its events (author, text, tool "
        "calls with arguments and results, state changes, artifacts saved, token usage). Turns a "
        "rewind took back stay in the log and are marked REWOUND.",
    )
    add_session_arguments(p)
    p.add_argument("--full", action="store_true", help="do not shorten long text and values, and show each event's id")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    from runtime.operations.history import history_pages, load_history  # the read models: not for every command

    store = open_store_for(args)
    try:
        row = find_session(store, args.session, args.app, args.user)
        if out.json_mode:
            out.json(jsonable(load_history(store, row).summary()))
            return 0
        render(out, history_pages(store, row), full=args.full)  # printed page by page, as read
    finally:
        store.close()
    return 0


# -- rendering ---------------------------------------------------------------------------


def render(out: Output, pages: Iterable[History], *, full: bool = False) -> None:
    """Prints a history given page by page (``runtime.operations.history.history_pages``; a whole
    history is one page): its head, each page's invocations and rewinds as they come, then the totals."""
    width = 10_000 if full else out.width
    events = invocations = rewound = tokens = 0
    history = None
    for number, history in enumerate(pages):
        t = history.timeline
        if number == 0:
            _head(out, history, width)
        events += sum(len(inv.steps) for inv in t.invocations)
        invocations += len(t.invocations)
        rewound += sum(1 for inv in t.invocations if inv.rewound)
        tokens += sum(inv.usage.get("total", 0) for inv in t.invocations)
        _blocks(out, history, width, full)
    if history is None:
        return
    summary = f"{plural(events, 'event')}, {plural(invocations, 'invocation')}"
    if rewound:
        summary += f" ({rewound} rewound)"
    if tokens:
        summary += f", {tokens:,} tokens"
    out.line()
    out.line(summary)
    if history.timeline.deleted is not None or history.row.deleted:
        out.line()
        out.line(out.style(f"deleted {utc(history.timeline.deleted)} UTC", "red"))


def _head(out: Output, history: History, width: int) -> None:
    t, row = history.timeline, history.row
    out.line(out.style(f"session {row.session_id}", "bold") + f"  app {row.app_name}  user {row.user_id}")
    created = f"created {utc(t.created)} UTC"
    if t.initial_state:
        created += f" with state {short(t.initial_state, width - 45)}"
    out.line(created)
    if history.forked_from:
        f = history.forked_from
        at = f" before invocation {f['before_invocation_id']}" if f.get("before_invocation_id") else ""
        out.line(f"forked from session {f['session_id']} at version {f['version']}{at}")


def _blocks(out: Output, history: History, width: int, full: bool) -> None:
    from projections.timeline import Invocation

    t = history.timeline
    blocks: list[tuple[int, Any]] = [(inv.first_version, inv) for inv in t.invocations]
    shown_versions = {s.version for inv in t.invocations for s in inv.steps}
    blocks += [(m.version, m) for m in history.rewinds if m.version not in shown_versions]
    marks = {m.version: m for m in history.rewinds}
    for _, block in sorted(blocks, key=lambda b: b[0]):
        out.line()
        if isinstance(block, Invocation):
            _invocation(out, block, width, marks, full)
        else:
            _rewind(out, block)


def _invocation(out: Output, inv: Invocation, width: int, marks: dict[int, RewindMark], full: bool = False) -> None:
    head = (f"invocation {inv.invocation_id or '(none)'}  {utc(inv.started)}  {inv.duration_ms:,.0f} ms"
            f"  by {', '.join(inv.authors)}")
    if inv.usage:
        head += f"  tokens {inv.usage.get('total', 0):,}"
    mark = "INTERRUPTED, recorded" if inv.interrupted_recorded else "INTERRUPTED"
    interrupted = ("  " + out.style(f"[{mark}: {len(inv.open_calls)} tool call(s) without a result]", "red", "bold")
                   if inv.interrupted else "")
    if inv.rewound:
        out.line(out.style(head, "bold", "dim") + "  " + out.style(f"[REWOUND by {inv.rewound_by}]", "yellow", "bold")
                 + interrupted)
    else:
        out.line(out.style(head, "bold") + interrupted)
    for step in inv.steps:
        lines = _step_lines(out, step, width, inv.rewound, with_id=full)
        if step.version in marks:
            lines.insert(1, " " * 21 + out.style(rewind_text(marks[step.version]), "yellow", "bold"))
        for line in lines:
            out.line(line)


def _step_lines(out: Output, s: Step, width: int, rewound: bool, *, with_id: bool = False) -> list[str]:
    prefix = f"  v{s.version:<5}{s.author:<12} "
    pad = " " * len(prefix)
    room = max(width - len(prefix) - 18, 30)
    colour = "cyan" if s.author == "user" else "green"
    meta = []
    if s.latency_ms is not None:
        meta.append(f"+{s.latency_ms:,.0f} ms")
    if s.usage:
        meta.append(f"tokens {s.usage.get('prompt', 0)}+{s.usage.get('candidates', 0)}")
    lines: list[str] = []

    def add(text: str, *styles: str) -> None:
        lead = out.style(prefix, colour) if not lines else pad
        lines.append(lead + out.style(text, *(("dim",) if rewound else styles)))

    if s.node:
        add(*_node_line(s.node, room))
    if s.text:
        add(short(s.text, room))
    for c in s.tool_calls:
        if c.name in REQUEST_KINDS:  # the invocation waits for a person
            add(f"⏸ asks for {REQUEST_KINDS[c.name]}: {short(_asked(c.name, c.args), room - 24)}", "yellow", "bold")
        else:
            add(f"→ {c.name}({short(_args(c.args), room - len(c.name) - 4)})", "magenta")
    cancelled = bool(s.error and s.error.startswith(INVOCATION_ABORTED))
    for r in s.tool_results:
        if r.name in REQUEST_KINDS and s.author == "user":
            add(f"✓ answers {REQUEST_KINDS[r.name]}: {short(r.response, room - 24)}", "cyan", "bold")
        elif not cancelled:
            tag = " ERROR" if r.error else ""
            add(f"← {r.name}{tag} {short(r.response, room - len(r.name) - 8)}", "red" if r.error else "magenta")
    if cancelled:
        sealed = ", ".join(r.name for r in s.tool_results)
        add(f"✗ CANCELLED{f' (sealed: {sealed})' if sealed else ''}: {s.error.split(': ', 1)[-1]}", "red", "bold")
    elif s.error:
        add(f"error {s.error}", "red")
    if s.transfer_to:
        add(f"transfer to {s.transfer_to}")
    if s.state_changes:
        changes = ", ".join(f"{k}={short(v, 40)}" for k, v in s.state_changes.items())
        add(f"state {short(changes, room - 6)}", "yellow")
    if s.artifacts:
        add("artifact " + ", ".join(f"{k} v{v}" for k, v in s.artifacts.items()), "blue")
    if not lines:
        add("(no content)", "grey")
    if with_id and s.event_id:  # what `prove` and `state-at event:ID` take
        add(f"event {s.event_id}", "grey")
    if meta:
        lines[0] += "  " + out.style(f"({', '.join(meta)})", "grey")
    return lines


NODE_STYLES = {"completed": "green", "failed": "red", "retried": "yellow", "waiting": "yellow", "cancelled": "red"}


def _node_line(node: NodeStep, room: int) -> tuple[str, ...]:
    """A workflow node's fact: `◆ wf/a@1 completed in 3 ms  in "x" → out "y"`, styled by status."""
    text = f"◆ {node.path} {node.status}"
    if node.seconds is not None:
        text += f" in {node.seconds * 1000:,.0f} ms"
    if node.attempt and node.attempt > 1:
        text += f" (attempt {node.attempt})"
    details = []
    if node.input is not None:
        details.append(f"in {short(_json(node.input), room // 3)}")
    if node.output is not None:
        details.append(f"→ out {short(_json(node.output), room // 3)}")
    if node.route is not None:
        details.append(f"route {short(node.route, 20)}")
    if node.error:
        details.append(short(node.error, room // 2))
    if details:
        text += "  " + " ".join(details)
    return short(text, room), *((NODE_STYLES[node.status],) if node.status in NODE_STYLES else ("blue",))


def _json(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, default=str)


def _asked(name: str, args: dict[str, Any]) -> str:
    """What a request asks, in words (see projections.pending for the wire shapes)."""
    if name == REQUEST_CONFIRMATION:
        original = args.get("originalFunctionCall") or {}
        hint = (args.get("toolConfirmation") or {}).get("hint", "")
        return f"{original.get('name', '?')}({_args(original.get('args') or {})})" + (f" — {hint}" if hint else "")
    if name == REQUEST_CREDENTIAL:
        return f"credential {(args.get('authConfig') or {}).get('credentialKey', '')} for call {args.get('functionCallId')}"
    return str(args.get("message") or _args(args))


def _args(args: dict[str, Any]) -> str:
    import json

    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in args.items())


def rewind_text(mark: RewindMark) -> str:
    text = f"REWIND at v{mark.version}: back to before invocation {mark.before_invocation}"
    text += f" (versions {mark.start_version}–{mark.version - 1} hidden)"
    if mark.undone:
        text += "  [itself REWOUND]"
    return text


def _rewind(out: Output, mark: RewindMark) -> None:
    text = rewind_text(mark) + f" at {utc(mark.timestamp)}"
    if mark.restored_keys:
        text += f"; state restored: {', '.join(mark.restored_keys)}"
    out.line(out.style(text, "yellow", "bold"))
