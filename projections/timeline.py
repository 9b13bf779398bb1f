"""A session's timeline: its invocations, who said what, which tools ran, what changed.

``fold_timeline(view, event) -> view`` folds one session's log into a ``Timeline``: one entry
per invocation, in order, each with its steps (one per event: author, text, tool calls with
their arguments, tool results, the state keys and artifacts the event changed, token usage, the
time since the invocation's previous event, and a workflow node's fact: its run's status,
input, output, error and time) and the invocation's duration and usage.

An invocation with a tool call that no result answers (and that is not long-running, which waits
by design) is marked ``interrupted``: its process stopped (a SIGKILL, a crash) or it lost the
session to another writer (a 409), read from the log alone (``domain.interruption``'s rule); where
a later invocation's writer recorded it (a ``SessionLog.Interrupted`` fact), the recorded open calls
are taken and the invocation is marked ``interrupted_recorded``.

Rewound turns stay in the timeline, marked: a rewind hides its target invocation and every
later one before it, and rewinding a rewind brings its range back (``domain.rewind_ranges`` decides
what is hidden). A fork's timeline starts with its copy of the source's history, marked copied.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from domain.rewind_ranges import active_ranges, is_hidden
from projections.base import Fold, by_session
from domain.interruption import still_open
from projections.log_event import CREATED, DELETED, FORKED, INTERRUPTED, RECORDED, REWOUND, LogEvent, is_tool_error
from projections.workflow import stored_node_fact


@dataclass
class ToolCall:
    id: str | None
    name: str
    args: dict[str, Any]


@dataclass
class ToolResult:
    id: str | None
    name: str
    response: Any
    error: bool


@dataclass
class NodeStep:
    """A workflow node's fact on a step (see projections.workflow): which run, what it says."""

    path: str
    status: str
    input: Any = None
    output: Any = None
    route: Any = None
    error: str | None = None
    attempt: int | None = None
    seconds: float | None = None  # a run's time, on its completed or failed fact


@dataclass
class Step:
    """One event of an invocation."""

    version: int
    event_id: str
    author: str
    timestamp: float
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    state_changes: dict[str, Any] = field(default_factory=dict)  # key -> new value (all scopes)
    artifacts: dict[str, int] = field(default_factory=dict)  # filename -> version saved
    usage: dict[str, int] = field(default_factory=dict)  # prompt / candidates / total tokens
    latency_ms: float | None = None  # since the invocation's previous event
    error: str | None = None
    transfer_to: str | None = None
    rewind_before: str | None = None  # a rewind marker: the invocation it rewound to before
    node: NodeStep | None = None  # a workflow node's fact
    error_code: str | None = None
    model: str | None = None  # the model that answered (its turns only; logged since traces)

    @property
    def state_keys(self) -> list[str]:
        return list(self.state_changes)


@dataclass
class Invocation:
    invocation_id: str
    first_version: int
    last_version: int
    started: float
    ended: float
    steps: list[Step] = field(default_factory=list)
    rewound: bool = False  # hidden by a rewind in effect (domain.rewind_ranges's rule)
    rewound_by: str | None = None
    copied: bool = False  # a fork's copy of its source's history
    # Tool calls the model made that no result answers (long-running ones, which wait for an
    # answer by design, left out): the process running the turn stopped (killed, crashed) or lost
    # the session to another writer (a 409), and the turn did not end the way it was going.
    open_calls: list[str] = field(default_factory=list)
    interrupted: bool = False
    # A later invocation's writer recorded the interruption in the log (SessionLog.Interrupted):
    # a fact, not only a reading; its open calls are the recorded ones.
    interrupted_recorded: bool = False

    @property
    def authors(self) -> list[str]:
        seen: dict[str, None] = {}
        for step in self.steps:
            seen.setdefault(step.author)
        return list(seen)

    @property
    def duration_ms(self) -> float:
        return (self.ended - self.started) * 1000

    @property
    def usage(self) -> dict[str, int]:
        total: dict[str, int] = {}
        for step in self.steps:
            for k, v in step.usage.items():
                total[k] = total.get(k, 0) + v
        return total


@dataclass
class Timeline:
    app_name: str = ""
    user_id: str = ""
    session_id: str = ""
    created: float | None = None
    initial_state: dict[str, Any] = field(default_factory=dict)
    invocations: list[Invocation] = field(default_factory=list)
    deleted: float | None = None
    events: int = 0
    forked_from: dict[str, Any] | None = None
    rewinds: list[list[int]] = field(default_factory=list)  # [rewind version, first version hidden]

    def __post_init__(self) -> None:
        # Invocations by id, the first of each id, kept up with ``invocations`` as it grows (not a
        # field: not part of the view's JSON). A scan per new invocation made the fold quadratic.
        self._by_id: dict[str, Invocation] = {}
        self._indexed = 0

    def invocation(self, invocation_id: str) -> Invocation | None:
        for inv in self.invocations[self._indexed:]:
            self._by_id.setdefault(inv.invocation_id, inv)
        self._indexed = len(self.invocations)
        return self._by_id.get(invocation_id)

    def format(self, *, width: int = 100) -> str:
        return format_timeline(self, width=width)


def _usage(usage: Mapping[str, Any]) -> dict[str, int]:
    out = {}
    for short, name in (("prompt", "prompt_token_count"), ("candidates", "candidates_token_count"),
                        ("total", "total_token_count")):
        if usage.get(name):
            out[short] = usage[name]
    return out


def fold_timeline(view: Timeline, event: LogEvent) -> Timeline:
    kind = event.kind
    if kind == RECORDED:
        view.events += 1
        _fold_step(view, event)
    elif kind == REWOUND:
        view.events += 1
        _fold_step(view, event)
        view.rewinds.append([event.version, event.meta.get("start_version", event.version)])
        hidden = active_ranges(view.rewinds)
        by = {first: version for version, first in view.rewinds}
        for inv in view.invocations:
            inv.rewound = is_hidden(inv.first_version, hidden)
            inv.rewound_by = None
            if inv.rewound:
                for first, last in hidden:
                    if first <= inv.first_version <= last:
                        inv.rewound_by = f"rewind at v{by.get(first, last + 1)}"
    elif kind == CREATED:
        view.app_name, view.user_id, view.session_id = event.app_name, event.user_id, event.session_id
        view.created = event.timestamp
        view.initial_state = dict(event.state_delta)
    elif kind == FORKED:
        view.forked_from = dict(event.meta)
    elif kind == DELETED:
        view.deleted = event.timestamp
    elif kind == INTERRUPTED:
        inv = view.invocation(event.meta.get("invocation_id") or "")
        if inv is not None:  # the recorded fact wins over the reading (a resume may still answer it)
            inv.open_calls = list(event.meta.get("open_calls") or [])
            inv.interrupted = inv.interrupted_recorded = bool(inv.open_calls)
    return view


def _fold_step(view: Timeline, event: LogEvent) -> None:
    invocation_id = event.invocation_id
    current = view.invocations[-1] if view.invocations else None
    if current is None or current.invocation_id != invocation_id:
        current = view.invocation(invocation_id) if invocation_id else None
        if current is None:
            current = Invocation(invocation_id, event.version, event.version, event.timestamp, event.timestamp)
            current.copied = event.copied
            view.invocations.append(current)
    previous = current.steps[-1].timestamp if current.steps else None
    actions = event.actions
    step = Step(
        version=event.version,
        event_id=event.event_id,
        author=event.author,
        timestamp=event.timestamp,
        text=event.text(),
        tool_calls=[ToolCall(c.get("id"), c.get("name", "?"), dict(c.get("args") or {})) for c in event.function_calls()],
        tool_results=[
            ToolResult(r.get("id"), r.get("name", "?"), r.get("response"), is_tool_error(r))
            for r in event.function_responses()
        ],
        state_changes=dict(event.state_delta),
        artifacts=dict(event.artifact_delta),
        usage=_usage(event.usage),
        latency_ms=None if previous is None else (event.timestamp - previous) * 1000,
        error=f"{event.error_code}: {event.data.get('error_message') or ''}".rstrip(": ") if event.error_code else None,
        transfer_to=actions.get("transfer_to_agent"),
        rewind_before=actions.get("rewind_before_invocation_id"),
        error_code=event.error_code,
        model=event.data.get("model_version"),
    )
    found = stored_node_fact(event.data)
    if found is not None:
        step.node = _node_step(current, *found, event)
    _track_calls(current, step, event)
    current.steps.append(step)
    current.last_version = event.version
    current.ended = max(current.ended, event.timestamp)


def _track_calls(invocation: Invocation, step: Step, event: LogEvent) -> None:
    if not (step.tool_calls or step.tool_results):
        return
    invocation.open_calls = still_open(invocation.open_calls, (c.id for c in step.tool_calls if c.id),
                                       (r.id for r in step.tool_results if r.id),
                                       event.data.get("long_running_tool_ids") or ())
    invocation.interrupted = bool(invocation.open_calls)


def _node_step(invocation: Invocation, path: str, fact: dict[str, Any], event: LogEvent) -> NodeStep:
    status = fact.get("status", "")
    output = fact["output"] if "output" in fact else event.data.get("output")  # an agent's text rides in its fact
    given = fact.get("input")
    if fact.get("content") and isinstance(given, dict):  # the user's message: shown as its text
        given = "".join(p.get("text") or "" for p in given.get("parts") or [] if not p.get("thought"))
    node = NodeStep(path, status, given, output, event.actions.get("route"),
                    fact.get("error"), fact.get("attempt"))
    if status in ("completed", "failed"):
        started = fact.get("started_at")
        if started is None:  # a run that said something first: its start rides on its first step
            started = next((s.timestamp for s in invocation.steps if s.node and s.node.path == path), None)
        node.seconds = None if started is None else event.timestamp - started
    return node


# -- presentation -------------------------------------------------------------------------


def _short(value: Any, width: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _time(ts: float) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def format_timeline(timeline: Timeline, *, width: int = 100) -> str:
    out = [f"session {timeline.session_id!r} of user {timeline.user_id!r} in app {timeline.app_name!r}"]
    if timeline.created is not None:
        out.append(f"created {_time(timeline.created)} UTC"
                   + (f" with state {_short(timeline.initial_state, width - 40)}" if timeline.initial_state else ""))
    if timeline.forked_from:
        f = timeline.forked_from
        out.append(f"forked from session {f.get('source_session_id')!r} at its version {f.get('source_version')}")
    for inv in timeline.invocations:
        usage = inv.usage
        head = (f"\ninvocation {inv.invocation_id or '(none)'}  {_time(inv.started)}  "
                f"{inv.duration_ms:,.0f} ms  by {', '.join(inv.authors)}"
                + (f"  tokens {usage.get('total', 0):,}" if usage else ""))
        if inv.rewound:
            head += f"  [REWOUND by {inv.rewound_by}]"
        if inv.copied:
            head += "  [copied from the source session]"
        if inv.interrupted:
            head += f"  [INTERRUPTED: {len(inv.open_calls)} tool call(s) without a result]"
        out.append(head)
        for s in inv.steps:
            lat = "" if s.latency_ms is None else f" +{s.latency_ms:,.0f}ms"
            prefix = f"  v{s.version:<5} {s.author}{lat}:"
            lines = []
            if s.node:
                lines.append(f"node {s.node.path} {s.node.status}")
            if s.text:
                lines.append(_short(s.text, width - len(prefix)))
            lines += [f"→ {c.name}({_short(c.args, width // 2)})" for c in s.tool_calls]
            lines += [f"← {r.name}{' ERROR' if r.error else ''} {_short(r.response, width // 2)}" for r in s.tool_results]
            if s.error:
                lines.append(f"error {s.error}")
            if s.transfer_to:
                lines.append(f"transfer to {s.transfer_to}")
            if s.rewind_before:
                lines.append(f"REWIND to before invocation {s.rewind_before}")
            if s.state_changes:
                lines.append("state " + ", ".join(s.state_changes))
            if s.artifacts:
                lines.append("artifacts " + ", ".join(f"{k} v{v}" for k, v in s.artifacts.items()))
            if s.usage:
                lines.append(f"tokens {s.usage.get('prompt', 0)}+{s.usage.get('candidates', 0)}")
            out.append(prefix + " " + ("; ".join(lines) or "(no content)"))
    if timeline.deleted is not None:
        out.append(f"\ndeleted {_time(timeline.deleted)} UTC")
    return "\n".join(out)


TIMELINE = Fold("timeline", fold_timeline, by_session, Timeline)
