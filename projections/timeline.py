"""A session's timeline: its invocations, who said what, which tools ran, what changed.

``fold_timeline(view, event) -> view`` folds one session's log into a ``Timeline``: one entry
per invocation, in order, each with its steps (one per event: author, text, tool calls with
their arguments, tool results, the state keys and artifacts the event changed, token usage and
the time since the invocation's previous event) and the invocation's duration and usage.

Rewound turns stay in the timeline, marked: an event whose ``actions.rewind_before_invocation_id``
names an earlier invocation marks that invocation and every later one before the rewind as
rewound (ADK's rewind); a ``rewound`` log event marks the invocations of the version range it
names.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from domain.state import split_scopes
from projections.base import Fold, by_session
from projections.log import CREATED, DELETED, RECORDED, REWOUND, LogEvent, is_tool_error


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
    rewound: bool = False
    rewound_by: str | None = None  # the event (or log version) that rewound it

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

    def invocation(self, invocation_id: str) -> Invocation | None:
        for inv in self.invocations:
            if inv.invocation_id == invocation_id:
                return inv
        return None

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
    if event.kind == CREATED:
        view.app_name, view.user_id, view.session_id = event.app_name, event.user_id, event.session_id
        view.created = event.timestamp
        view.initial_state = dict(event.state_delta)
    elif event.kind == DELETED:
        view.deleted = event.timestamp
    elif event.kind == REWOUND:
        first, last = event.data.get("first_version", 0), event.data.get("last_version", 0)
        for inv in view.invocations:
            if inv.first_version >= first and inv.last_version <= last:
                inv.rewound, inv.rewound_by = True, f"version {event.version}"
    elif event.kind == RECORDED:
        view.events += 1
        _fold_step(view, event)
    return view


def _fold_step(view: Timeline, event: LogEvent) -> None:
    invocation_id = event.invocation_id
    current = view.invocations[-1] if view.invocations else None
    if current is None or current.invocation_id != invocation_id:
        current = view.invocation(invocation_id) if invocation_id else None
        if current is None:
            current = Invocation(invocation_id, event.version, event.version, event.timestamp, event.timestamp)
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
        error=event.error_code and f"{event.error_code}: {event.data.get('error_message') or ''}".rstrip(": "),
        transfer_to=actions.get("transfer_to_agent"),
    )
    current.steps.append(step)
    current.last_version = event.version
    current.ended = max(current.ended, event.timestamp)

    rewind_to = actions.get("rewind_before_invocation_id")
    if rewind_to:
        marking = False
        for inv in view.invocations:
            marking = marking or inv.invocation_id == rewind_to
            if marking and inv is not current:
                inv.rewound, inv.rewound_by = True, event.event_id


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
    for inv in timeline.invocations:
        usage = inv.usage
        head = (f"\ninvocation {inv.invocation_id or '(none)'}  {_time(inv.started)}  "
                f"{inv.duration_ms:,.0f} ms  by {', '.join(inv.authors)}"
                + (f"  tokens {usage.get('total', 0):,}" if usage else ""))
        if inv.rewound:
            head += f"  [REWOUND by {inv.rewound_by}]"
        out.append(head)
        for s in inv.steps:
            lat = "" if s.latency_ms is None else f" +{s.latency_ms:,.0f}ms"
            prefix = f"  v{s.version:<5} {s.author}{lat}:"
            lines = []
            if s.text:
                lines.append(_short(s.text, width - len(prefix)))
            lines += [f"→ {c.name}({_short(c.args, width // 2)})" for c in s.tool_calls]
            lines += [f"← {r.name}{' ERROR' if r.error else ''} {_short(r.response, width // 2)}" for r in s.tool_results]
            if s.error:
                lines.append(f"error {s.error}")
            if s.transfer_to:
                lines.append(f"transfer to {s.transfer_to}")
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


def session_scopes_changed(state_changes: Mapping[str, Any]) -> dict[str, list[str]]:
    """The changed keys by scope: {"session": [...], "app": [...], "user": [...]}."""
    scoped = split_scopes(state_changes)
    return {"session": list(scoped.session), "app": list(scoped.app), "user": list(scoped.user)}


TIMELINE = Fold("timeline", fold_timeline, by_session, Timeline)
