"""Analytics per app: what people ask of an agent app, folded from its log.

One ``AnalyticsView`` per app counts sessions, invocations, events, LLM calls (and their
errors), tool calls and tool errors, and prompt/candidate/total tokens — in total, per agent,
per tool, per user and per UTC day — and keeps latency statistics per agent (model calls) and
per tool. Definitions, all read from the events alone:

* an LLM call is an event an agent authored with model content (role ``model``) or a model
  error; its tokens are its ``usage_metadata``; its latency is the time since the previous
  event of the same invocation (what the model was answering);
* a tool call is a ``function_call`` part of an LLM call, counted when the model makes it;
  a tool error is a ``function_response`` whose response has an ``error`` entry (ADK's
  convention); a tool's latency runs from its call's event to its response's event;
* an invocation is counted on its first event; its duration (first to last event) is added
  when the session's next invocation starts, so it covers completed invocations;
* a workflow node (named by its place, ``wf/inner/a``) counts its runs, finished runs, failures
  and retried attempts, from the facts of its life (projections.workflow); its latency runs from
  its start (or resume) to its completed fact;
* an invocation is counted as interrupted when the session's next invocation starts while
  tool calls of it have no result (long-running calls, which wait by design, left out): its
  process stopped or it lost the session to another writer;
* rewinds and forks are counted apart; rewound turns stay counted (their tokens were spent),
  and a fork's copy of its source's history is not counted again.

To time calls the view keeps a small cursor per session with recent activity (its current
invocation, last event time, unanswered calls). Cursors idle for an hour of log time are
dropped, every 1,000 events: deterministic in the events, so a rebuild equals the live view.
"""

from __future__ import annotations

import datetime as _dt
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

from projections.base import Fold, Projection, by_app
from projections.log_event import CREATED, DELETED, FORKED, INTERRUPTED, RECORDED, REWOUND, LogEvent, is_tool_error
from projections.workflow import node_key, starts_run, stored_node_fact

# Latency histogram bucket upper bounds, in milliseconds (plus one overflow bucket).
BOUNDS_MS = (5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000)
_IDLE_S = 3600.0
_PRUNE_EVERY = 1000
_RECENT_INVOCATIONS = 4


class Latency:
    """Count, total, maximum and a fixed histogram of durations (ms)."""

    __slots__ = ("count", "total_ms", "max_ms", "buckets")

    def __init__(self, count: int = 0, total_ms: float = 0.0, max_ms: float = 0.0, buckets: list[int] | None = None):
        self.count, self.total_ms, self.max_ms = count, total_ms, max_ms
        self.buckets = buckets if buckets is not None else [0] * (len(BOUNDS_MS) + 1)

    def add(self, ms: float) -> None:
        ms = max(ms, 0.0)
        self.count += 1
        self.total_ms += ms
        if ms > self.max_ms:
            self.max_ms = ms
        self.buckets[bisect_left(BOUNDS_MS, ms)] += 1

    @property
    def mean_ms(self) -> float | None:
        return self.total_ms / self.count if self.count else None

    def quantile_ms(self, q: float) -> float | None:
        """An upper bound of the q-quantile: the bound of the bucket it falls in (or the max)."""
        if not self.count:
            return None
        rank, seen = q * self.count, 0
        for i, n in enumerate(self.buckets):
            seen += n
            if seen >= rank and n:
                return float(min(BOUNDS_MS[i], self.max_ms)) if i < len(BOUNDS_MS) else self.max_ms
        return self.max_ms

    def to_json(self) -> list[Any]:
        return [self.count, self.total_ms, self.max_ms, self.buckets]

    @classmethod
    def from_json(cls, data: list[Any]) -> Latency:
        return cls(data[0], data[1], data[2], list(data[3]))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Latency) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"Latency(count={self.count}, mean_ms={self.mean_ms}, max_ms={self.max_ms})"


_COUNTS = (
    "sessions", "invocations", "events", "llm_calls", "llm_errors", "tool_calls", "tool_errors",
    "prompt_tokens", "candidate_tokens", "total_tokens", "interrupted",
)
_KEPT_WHEN_ZERO = _COUNTS[:-1]  # ``interrupted`` is written only when some were: views stored before it stay equal


class Counts:
    """The counters kept in total, per user and per day."""

    __slots__ = _COUNTS

    def __init__(self, **values: int):
        for name in _COUNTS:
            setattr(self, name, values.get(name, 0))

    def to_json(self) -> dict[str, int]:
        out = {name: getattr(self, name) for name in _KEPT_WHEN_ZERO}
        if self.interrupted:
            out["interrupted"] = self.interrupted
        return out

    @classmethod
    def from_json(cls, data: dict[str, int]) -> Counts:
        return cls(**data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Counts) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"Counts({', '.join(f'{k}={v}' for k, v in self.to_json().items() if v)})"


class AgentStats(Counts):
    """Counts of one agent's events, plus the latency of its model calls."""

    __slots__ = ("llm_latency",)

    def __init__(self, llm_latency: Latency | None = None, **values: int):
        super().__init__(**values)
        self.llm_latency = llm_latency or Latency()

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "llm_latency": self.llm_latency.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AgentStats:
        values = {k: v for k, v in data.items() if k != "llm_latency"}
        return cls(Latency.from_json(data["llm_latency"]), **values)


class ToolStats:
    __slots__ = ("calls", "errors", "latency")

    def __init__(self, calls: int = 0, errors: int = 0, latency: Latency | None = None):
        self.calls, self.errors = calls, errors
        self.latency = latency or Latency()

    def to_json(self) -> dict[str, Any]:
        return {"calls": self.calls, "errors": self.errors, "latency": self.latency.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ToolStats:
        return cls(data["calls"], data["errors"], Latency.from_json(data["latency"]))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolStats) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"ToolStats(calls={self.calls}, errors={self.errors}, latency={self.latency!r})"


class NodeStats:
    """One workflow node's runs (a node is named by its place, ``wf/inner/a``): how many ran,
    finished, failed, how often an attempt was retried, and the time of its finished runs."""

    __slots__ = ("runs", "completed", "failures", "retries", "latency")

    def __init__(self, runs: int = 0, completed: int = 0, failures: int = 0, retries: int = 0,
                 latency: Latency | None = None):
        self.runs, self.completed, self.failures, self.retries = runs, completed, failures, retries
        self.latency = latency or Latency()

    def to_json(self) -> dict[str, Any]:
        return {"runs": self.runs, "completed": self.completed, "failures": self.failures, "retries": self.retries,
                "latency": self.latency.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NodeStats:
        return cls(data["runs"], data["completed"], data["failures"], data["retries"], Latency.from_json(data["latency"]))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NodeStats) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"NodeStats({self.to_json()})"


class _Cursor:
    """A session's recent activity, for timing: kept while the session is active."""

    __slots__ = ("invocation", "started", "last_ts", "recent", "pending", "nodes")

    def __init__(
        self, invocation: str = "", started: float = 0.0, last_ts: float = 0.0,
        recent: list[str] | None = None, pending: dict[str, list[Any]] | None = None,
        nodes: dict[str, float] | None = None,
    ):
        self.invocation, self.started, self.last_ts = invocation, started, last_ts
        self.recent = recent if recent is not None else []
        self.pending = pending if pending is not None else {}  # call id -> [tool, agent, ts]
        self.nodes = nodes if nodes is not None else {}  # path of a running node -> when it (re)started

    def to_json(self) -> list[Any]:
        return [self.invocation, self.started, self.last_ts, self.recent, self.pending, self.nodes]

    @classmethod
    def from_json(cls, data: list[Any]) -> _Cursor:
        return cls(data[0], data[1], data[2], list(data[3]), dict(data[4]), dict(data[5]) if len(data) > 5 else {})


@dataclass
class AnalyticsView:
    """Analytics of one app (see the module docstring for what each figure means)."""

    totals: Counts = field(default_factory=Counts)
    agents: dict[str, AgentStats] = field(default_factory=dict)
    tools: dict[str, ToolStats] = field(default_factory=dict)
    nodes: dict[str, NodeStats] = field(default_factory=dict)
    users: dict[str, Counts] = field(default_factory=dict)
    days: dict[str, Counts] = field(default_factory=dict)
    invocation_latency: Latency = field(default_factory=Latency)
    deleted_sessions: int = 0
    rewinds: int = 0
    forks: int = 0
    first_event: float | None = None
    last_event: float | None = None
    folded: int = 0
    cursors: dict[str, _Cursor] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "totals": self.totals.to_json(),
            "agents": {k: v.to_json() for k, v in self.agents.items()},
            "tools": {k: v.to_json() for k, v in self.tools.items()},
            "nodes": {k: v.to_json() for k, v in self.nodes.items()},
            "users": {k: v.to_json() for k, v in self.users.items()},
            "days": {k: v.to_json() for k, v in self.days.items()},
            "invocation_latency": self.invocation_latency.to_json(),
            "deleted_sessions": self.deleted_sessions,
            "rewinds": self.rewinds,
            "forks": self.forks,
            "first_event": self.first_event,
            "last_event": self.last_event,
            "folded": self.folded,
            "cursors": {k: v.to_json() for k, v in self.cursors.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AnalyticsView:
        return cls(
            totals=Counts.from_json(data["totals"]),
            agents={k: AgentStats.from_json(v) for k, v in data["agents"].items()},
            tools={k: ToolStats.from_json(v) for k, v in data["tools"].items()},
            nodes={k: NodeStats.from_json(v) for k, v in data.get("nodes", {}).items()},
            users={k: Counts.from_json(v) for k, v in data["users"].items()},
            days={k: Counts.from_json(v) for k, v in data["days"].items()},
            invocation_latency=Latency.from_json(data["invocation_latency"]),
            deleted_sessions=data["deleted_sessions"],
            rewinds=data.get("rewinds", 0),
            forks=data.get("forks", 0),
            first_event=data["first_event"],
            last_event=data["last_event"],
            folded=data["folded"],
            cursors={k: _Cursor.from_json(v) for k, v in data["cursors"].items()},
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnalyticsView) and self.to_json() == other.to_json()


_DAYS: dict[int, str] = {}


def _day(timestamp: float) -> str:
    n = int(timestamp // 86400)
    day = _DAYS.get(n)
    if day is None:
        day = _DAYS[n] = _dt.datetime.fromtimestamp(n * 86400, _dt.timezone.utc).strftime("%Y-%m-%d")
    return day


def fold_analytics(view: AnalyticsView, event: LogEvent) -> AnalyticsView:
    if event.copied:
        return view  # a fork's copy of its source's history is not new activity
    kind = event.kind
    if kind == REWOUND:
        view.rewinds += 1
        return view
    if kind == FORKED:
        view.forks += 1
        return view
    ts = event.timestamp
    view.folded += 1
    if view.first_event is None or ts < view.first_event:
        view.first_event = ts
    if view.last_event is None or ts > view.last_event:
        view.last_event = ts
    user = view.users.get(event.user_id)
    if user is None:
        user = view.users[event.user_id] = Counts()
    day_key = _day(ts)
    day = view.days.get(day_key)
    if day is None:
        day = view.days[day_key] = Counts()
    rows: tuple[Counts, ...] = (view.totals, user, day)

    if kind == RECORDED:
        _fold_recorded(view, event, rows, ts)
    elif kind == CREATED:
        for row in rows:
            row.sessions += 1
    elif kind == INTERRUPTED:
        _count_recorded_interruption(view, event, rows)
    elif kind == DELETED:
        view.deleted_sessions += 1
        cursor = view.cursors.pop(event.session_key, None)
        if cursor is not None and cursor.invocation:
            view.invocation_latency.add((cursor.last_ts - cursor.started) * 1000)

    if view.folded % _PRUNE_EVERY == 0:
        _prune(view, ts)
    return view


def _fold_recorded(view: AnalyticsView, event: LogEvent, rows: tuple[Counts, ...], ts: float) -> None:
    data = event.data
    for row in rows:
        row.events += 1
    key = event.session_key
    cursor = view.cursors.get(key)
    if cursor is None:
        cursor = view.cursors[key] = _Cursor()
    invocation = data.get("invocation_id") or ""
    previous_ts = cursor.last_ts if invocation and invocation == cursor.invocation else None
    if invocation and invocation != cursor.invocation:
        if invocation not in cursor.recent:
            for row in rows:
                row.invocations += 1
            cursor.recent.append(invocation)
            del cursor.recent[:-_RECENT_INVOCATIONS]
            if cursor.invocation:
                view.invocation_latency.add((cursor.last_ts - cursor.started) * 1000)
                _close_interrupted(cursor, rows)
            cursor.started = ts
        cursor.invocation = invocation

    author = data.get("author") or ""
    agent: AgentStats | None = None
    if author and author != "user":
        agent = view.agents.get(author)
        if agent is None:
            agent = view.agents[author] = AgentStats()
        agent.events += 1
    counted = (*rows, agent) if agent is not None else rows

    content = data.get("content")
    parts = (content.get("parts") or ()) if content else ()
    role = content.get("role") if content else None
    if agent is not None and (role == "model" or (role is None and (data.get("error_code") or data.get("usage_metadata")))):
        usage = data.get("usage_metadata")
        prompt = candidates = total = 0
        if usage:
            prompt = usage.get("prompt_token_count") or 0
            candidates = usage.get("candidates_token_count") or 0
            total = usage.get("total_token_count") or (prompt + candidates)
        error = 1 if data.get("error_code") else 0
        for row in counted:
            row.llm_calls += 1
            row.llm_errors += error
            row.prompt_tokens += prompt
            row.candidate_tokens += candidates
            row.total_tokens += total
        if previous_ts is not None:
            agent.llm_latency.add((ts - previous_ts) * 1000)
        for part in parts:
            call = part.get("function_call")
            if not call:
                continue
            for row in counted:
                row.tool_calls += 1
            name = call.get("name") or "?"
            tool = view.tools.get(name)
            if tool is None:
                tool = view.tools[name] = ToolStats()
            tool.calls += 1
            if call.get("id"):
                waits = call["id"] in (data.get("long_running_tool_ids") or ())
                cursor.pending[call["id"]] = [name, author, ts, waits]

    for part in parts:
        response = part.get("function_response")
        if not response:
            continue
        name = response.get("name") or "?"
        tool = view.tools.get(name)
        if tool is None:
            tool = view.tools[name] = ToolStats()
        pending = cursor.pending.pop(response.get("id") or "", None)
        if is_tool_error(response):
            tool.errors += 1
            for row in rows:
                row.tool_errors += 1
            caller = view.agents.get(pending[1]) if pending else agent
            if caller is not None:
                caller.tool_errors += 1
        if pending is not None:
            tool.latency.add((ts - pending[2]) * 1000)
    found = stored_node_fact(data)
    if found is not None:
        _fold_node(view, cursor, *found, ts)
    cursor.last_ts = ts


def _fold_node(view: AnalyticsView, cursor: _Cursor, path: str, fact: dict[str, Any], ts: float) -> None:
    """A workflow node's fact (see projections.workflow): counted per node, timed from its (re)start."""
    key = node_key(path)
    stats = view.nodes.get(key)
    if stats is None:
        stats = view.nodes[key] = NodeStats()
    status = fact.get("status")
    if starts_run(fact):
        stats.runs += 1
    if "input" in fact:  # a (re)start, which may ride on the run's first event of any kind
        cursor.nodes[path] = fact.get("started_at", ts)
    if status == "retried":
        stats.retries += 1
    elif status == "completed":
        stats.completed += 1
        started = fact.get("started_at", cursor.nodes.get(path))
        if started is not None:
            stats.latency.add((ts - started) * 1000)
    elif status == "failed":
        stats.failures += 1
    if status in ("completed", "failed", "cancelled", "waiting"):
        cursor.nodes.pop(path, None)


def _close_interrupted(cursor: _Cursor, rows: tuple[Counts, ...]) -> None:
    """A session's next invocation started while calls of an earlier one had no result (and were
    not long-running, which wait by design): that invocation was interrupted (its process
    stopped, or it lost the session to another writer). Counted once; its calls are dropped."""
    dropped = [call_id for call_id, entry in cursor.pending.items() if not (len(entry) > 3 and entry[3])]
    if dropped:
        for row in rows:
            row.interrupted += 1
        for call_id in dropped:
            del cursor.pending[call_id]


def _count_recorded_interruption(view: AnalyticsView, event: LogEvent, rows: tuple[Counts, ...]) -> None:
    """The recorded fact (noted just before the next invocation's first event): counted even when
    the session's cursor is gone; its calls are dropped so the reading does not count it again."""
    for row in rows:
        row.interrupted += 1
    cursor = view.cursors.get(event.session_key)
    if cursor is not None:
        for call_id in event.meta.get("open_calls") or ():
            cursor.pending.pop(call_id, None)


def _prune(view: AnalyticsView, now: float) -> None:
    for key in [k for k, c in view.cursors.items() if c.last_ts < now - _IDLE_S]:
        del view.cursors[key]


ANALYTICS_FOLD: Fold[AnalyticsView] = Fold(
    "analytics", fold_analytics, by_app, AnalyticsView, False, AnalyticsView.to_json, AnalyticsView.from_json
)
ANALYTICS = Projection("analytics", folds=[ANALYTICS_FOLD])


# -- presentation -------------------------------------------------------------------------


def _ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:,.0f} ms" if value >= 10 else f"{value:.1f} ms"


def _table(headers: list[str], rows: list[list[Any]]) -> list[str]:
    cells = [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in [headers, *cells]) for i in range(len(headers))]
    line = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    return [line(headers), line(["-" * w for w in widths]), *(line(r) for r in cells)]


def format_analytics(app_name: str, view: AnalyticsView, *, top: int = 20) -> str:
    """The view as plain-text tables: totals, per agent, per tool, per user, per day."""
    t = view.totals
    out = [f"analytics of app {app_name!r}" + (
        f" ({view.deleted_sessions} sessions deleted, {view.rewinds} rewinds, {view.forks} forks)"
        if view.deleted_sessions or view.rewinds or view.forks else "")
        + (f"; {view.totals.interrupted} invocations interrupted" if view.totals.interrupted else "")]
    out += _table(
        ["sessions", "invocations", "events", "llm calls", "llm errors", "tool calls", "tool errors",
         "prompt tok", "cand. tok", "total tok", "invocation p50", "p95"],
        [[t.sessions, t.invocations, t.events, t.llm_calls, t.llm_errors, t.tool_calls, t.tool_errors,
          t.prompt_tokens, t.candidate_tokens, t.total_tokens,
          _ms(view.invocation_latency.quantile_ms(0.5)), _ms(view.invocation_latency.quantile_ms(0.95))]],
    )
    if view.agents:
        out += ["", "per agent"]
        out += _table(
            ["agent", "events", "llm calls", "errors", "tool calls", "tool errors", "total tok",
             "llm mean", "llm p95", "llm max"],
            [[name, a.events, a.llm_calls, a.llm_errors, a.tool_calls, a.tool_errors, a.total_tokens,
              _ms(a.llm_latency.mean_ms), _ms(a.llm_latency.quantile_ms(0.95)), _ms(a.llm_latency.max_ms or None)]
             for name, a in sorted(view.agents.items(), key=lambda kv: -kv[1].events)[:top]],
        )
    if view.tools:
        out += ["", "per tool"]
        out += _table(
            ["tool", "calls", "errors", "mean", "p95", "max"],
            [[name, s.calls, s.errors, _ms(s.latency.mean_ms), _ms(s.latency.quantile_ms(0.95)),
              _ms(s.latency.max_ms or None)]
             for name, s in sorted(view.tools.items(), key=lambda kv: -kv[1].calls)[:top]],
        )
    if view.nodes:
        out += ["", "per workflow node"]
        out += _table(
            ["node", "runs", "completed", "failures", "retries", "mean", "p95", "max"],
            [[name, s.runs, s.completed, s.failures, s.retries, _ms(s.latency.mean_ms),
              _ms(s.latency.quantile_ms(0.95)), _ms(s.latency.max_ms or None)]
             for name, s in sorted(view.nodes.items(), key=lambda kv: -kv[1].runs)[:top]],
        )
    for title, rows in (("per user", view.users), ("per day (UTC)", view.days)):
        if not rows:
            continue
        items = sorted(rows.items(), key=lambda kv: -kv[1].events)[:top] if title == "per user" else sorted(rows.items())[-top:]
        out += ["", title]
        out += _table(
            [title.split()[1], "sessions", "invocations", "events", "llm calls", "tool calls", "tool errors", "total tok"],
            [[k, c.sessions, c.invocations, c.events, c.llm_calls, c.tool_calls, c.tool_errors, c.total_tokens]
             for k, c in items],
        )
    return "\n".join(out)
