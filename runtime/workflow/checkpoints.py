"""A resumable app's workflow checkpoints, as google-adk 2.13 writes them.

In a resumable app (`ResumabilityConfig(is_resumable=True)`) ADK's workflow records, on the event
stream, a snapshot of its graph nodes' statuses (`actions.agent_state = {"nodes": {name: {"status":
n, "interrupts": [...]}}}`) each time a node starts, waits or completes; re-says the output of a node
a resume skips (it finished before the pause); and ends with `end_of_agent`. Chronicle writes the
same events so that `run_async` and `session.events` are ADK's; its own resume still reads the node
facts (projections.workflow), never these snapshots.
"""

from __future__ import annotations

from typing import Any

from domain.events import Event, EventActions, NodeInfo
from runtime.invocation_context import InvocationContext
from runtime.workflow.agent_node import USER_TURN

# google-adk's NodeStatus values, as its snapshots hold them
RUNNING, COMPLETED, WAITING = 2, 3, 4


class Checkpoints:
    """The statuses of one graph run's nodes (by node name, the latest run of each) and the events
    that say them; every method returns None outside a resumable app."""

    def __init__(self, ctx: InvocationContext, author: str):
        self.ctx = ctx
        self.author = author
        self.on = ctx.is_resumable
        self.nodes: dict[str, dict[str, Any]] = {}

    def started(self, name: str) -> Event | None:
        return self._set(name, RUNNING, [])

    def completed(self, name: str) -> Event | None:
        return self._set(name, COMPLETED, self.nodes.get(name, {}).get("interrupts", []))

    def waiting(self, name: str, interrupts: list[str]) -> Event | None:
        # a task agent waiting for the user's reply is no input request to ADK
        return self._set(name, WAITING, [i for i in interrupts if i != USER_TURN])

    def replayed(self, name: str, path: str, output: Any) -> Event | None:
        """A node the log says finished: completed without a snapshot; its output said again."""
        if not self.on:
            return None
        self.nodes[name] = {"status": COMPLETED, "interrupts": []}
        if output is None:
            return None
        return Event(
            invocation_id=self.ctx.invocation_id, author=self.author, branch=self.ctx.branch,
            output=output, node_info=NodeInfo(path=path),
        )

    def end(self) -> Event | None:
        """The graph ran to its end with nothing left waiting."""
        if not self.on:
            return None
        return Event(
            invocation_id=self.ctx.invocation_id, author=self.author, branch=self.ctx.branch,
            actions=EventActions(end_of_agent=True),
        )

    def _set(self, name: str, status: int, interrupts: list[str]) -> Event | None:
        if not self.on:
            return None
        self.nodes[name] = {"status": status, "interrupts": interrupts}
        snapshot = {n: dict(s, interrupts=list(s["interrupts"])) for n, s in self.nodes.items()}
        return Event(
            invocation_id=self.ctx.invocation_id, author=self.author, branch=self.ctx.branch,
            actions=EventActions(agent_state={"nodes": snapshot}),
        )


def is_checkpoint(event: Event) -> bool:
    """A workflow's own snapshot or end: it passes through an enclosing node as it is."""
    return event.actions.agent_state is not None or bool(event.actions.end_of_agent)
