"""Workflow runs, folded from a session's events: every node's life as the log records it.

A workflow node's life is written as ordinary ADK events the workflow yields. Each carries
`node_info.path` (``wf@1/A@1/B@2``: the workflow, then each node with its run id) and, under the one
key `NODE_FACT_KEY` of `custom_metadata`, the fact:

    {"status": "started",   "input": <json>, "attempt": 1, "sources": [<paths of the runs that triggered it>]}
                                       (on the run's first event: a message it yields, say; "content": true
                                        when the input is the user's message, a Content)
    {"status": "completed"}            (with the output in `Event.output`, the route in `actions.route`;
                                        what the event does not say of the run's output or route -- an
                                        agent's text, an output an earlier event gave -- in "output", "route")
    {"status": "completed", "input": ..., "sources": [...], "attempt": 1, "started_at": <ts>}
                                       (a quick node's start and end in one event: one commit, not two)
    {"status": "failed",    "error": "ValueError: ...", "attempt": n}
    {"status": "retried",   "error": "...", "attempt": n}     (attempt n failed; n + 1 follows)
    {"status": "waiting", "interrupts": [<ids>]}   (waits for the client's input; see runtime.workflow.interrupts)
    {"status": "resumed",   ...as started}     (a resumed invocation runs the node again)
    {"status": "cancelled"}

`fold` is pure: `(runs, event) -> runs`. A resume reads it once; `chronicle history` and
`chronicle workflow` show it; the analytics count from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional

if TYPE_CHECKING:  # folds read JSON; importing the model (and google-genai) is left to callers
    from domain.events import Event

NODE_FACT_KEY = "chronicle_node"

FINISHED = "completed"


@dataclass
class NodeRun:
    """One run of one node (one path)."""

    path: str
    status: str = "started"
    input: Any = None
    output: Any = None
    route: Any = None
    error: Optional[str] = None
    sources: list[str] = field(default_factory=list)
    interrupts: list[str] = field(default_factory=list)
    attempts: int = 1
    retries: int = 0
    started_at: Optional[float] = None
    ended_at: Optional[float] = None

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1].split("@", 1)[0]

    @property
    def finished(self) -> bool:
        return self.status == FINISHED

    @property
    def seconds(self) -> Optional[float]:
        if self.started_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.started_at


@dataclass
class WorkflowRuns:
    """The node runs of a session's invocations: invocation id -> path -> NodeRun, in the order
    they started (paths repeat across invocations, never within one)."""

    invocations: dict[str, dict[str, NodeRun]] = field(default_factory=dict)

    @property
    def nodes(self) -> dict[str, NodeRun]:
        """The node runs of the latest workflow invocation."""
        return next(reversed(self.invocations.values())) if self.invocations else {}


def node_fact(event: Event) -> Optional[dict[str, Any]]:
    metadata = event.custom_metadata
    fact = metadata.get(NODE_FACT_KEY) if metadata else None
    return fact if isinstance(fact, dict) and event.node_info.path else None


def stored_node_fact(data: Mapping[str, Any]) -> Optional[tuple[str, dict[str, Any]]]:
    """`node_fact` of a stored event's JSON dict (what the log-event folds read): (path, fact)."""
    metadata = data.get("custom_metadata")
    fact = metadata.get(NODE_FACT_KEY) if metadata else None
    path = (data.get("node_info") or {}).get("path")
    return (path, fact) if isinstance(fact, dict) and path else None


def starts_run(fact: Mapping[str, Any]) -> bool:
    """Whether a fact opens a new run of its node (a started fact, or a quick node's whole life in
    one completed fact), rather than continuing one (resumed, retried, ...)."""
    return "input" in fact and fact.get("status") != "resumed" and not fact.get("resumed")


def node_key(path: str) -> str:
    """A node's place in its workflows without the run ids: ``wf/inner@2/a@3`` -> ``wf/inner/a``."""
    return "/".join(part.split("@", 1)[0] for part in path.split("/"))


def fold(runs: WorkflowRuns, event: Event) -> WorkflowRuns:
    fact = node_fact(event)
    if fact is None:
        return runs
    path = event.node_info.path
    status = fact.get("status", "")
    nodes = runs.invocations.setdefault(event.invocation_id, {})
    run = nodes.get(path)
    if run is None:
        run = nodes[path] = NodeRun(path=path, started_at=fact.get("started_at", event.timestamp))
        if len(nodes) > 1 and run.started_at < next(reversed(list(nodes.values())[:-1])).started_at:
            # a run's start is recorded with its first event, so one that started earlier (a nested
            # workflow, a slow sibling) may be seen later: keep the runs in the order they started
            ordered = sorted(nodes.values(), key=lambda r: r.started_at)
            nodes.clear()
            nodes.update((r.path, r) for r in ordered)
    if "input" in fact:  # started, resumed, or a quick node's completed fact that says both
        run.input = fact.get("input")
        if fact.get("content") and isinstance(run.input, dict):  # the user's message, as the run got it
            from google.genai import types  # only here: folds read JSON

            run.input = types.Content.model_validate(run.input)
        run.sources = list(fact.get("sources", ()))
        run.attempts = fact.get("attempt", run.attempts)
        run.error = None
    if status == "retried":
        run.retries += 1
        run.attempts = fact.get("attempt", run.attempts) + 1
        run.error = fact.get("error")
    elif status == FINISHED:
        run.output = fact["output"] if "output" in fact else event.output  # an agent's text output rides in its fact
        run.route = fact["route"] if "route" in fact else event.actions.route
        run.ended_at = event.timestamp
    elif status == "waiting":
        run.interrupts = list(fact.get("interrupts", ()))
    elif status in ("failed", "cancelled"):
        run.error = fact.get("error")
        run.ended_at = event.timestamp
    run.status = status
    return runs


def fold_all(events: Iterable[Event], runs: Optional[WorkflowRuns] = None) -> WorkflowRuns:
    runs = runs if runs is not None else WorkflowRuns()
    for event in events:
        fold(runs, event)
    return runs


def run_edges(nodes: list[NodeRun]) -> list[tuple[str, str, str, bool]]:
    """(from, to, label, dynamic): the edges a run followed, between node paths ("START" for the
    start); dynamic when a node ran a child of its own rather than one the graph triggered."""
    known = {n.path for n in nodes}
    edges = []
    for n in nodes:
        parent = n.path.rsplit("/", 1)[0]
        sources = n.sources or [parent if parent in known else "START"]
        for source in sources:
            dynamic = source == parent and source in known
            route = next((m.route for m in nodes if m.path == source), None)
            label = "" if route is None else str(route)
            edges.append((source, n.path, label, dynamic))
    return edges


@dataclass
class NodeStats:
    """What the analytics count per node name: runs, failures, retries, and time of finished runs."""

    runs: int = 0
    completed: int = 0
    failures: int = 0
    retries: int = 0
    total_seconds: float = 0.0

    @property
    def mean_seconds(self) -> Optional[float]:
        return self.total_seconds / self.completed if self.completed else None


def node_stats(runs: WorkflowRuns) -> dict[str, NodeStats]:
    """Per node name (a node inside a nested workflow counts under its own name)."""
    stats: dict[str, NodeStats] = {}
    for nodes in runs.invocations.values():
        for run in nodes.values():
            s = stats.setdefault(run.name, NodeStats())
            s.runs += 1
            s.retries += run.retries
            if run.status == "failed":
                s.failures += 1
            if run.finished and run.seconds is not None:
                s.completed += 1
                s.total_seconds += run.seconds
    return stats
