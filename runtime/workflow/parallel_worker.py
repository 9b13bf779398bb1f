"""ParallelWorker: a node run once per item of a list input (`@node(parallel_worker=True)`).

Each item runs as a dynamic child on a branch of its own (as ADK) (``.../name@1/name@k``), so every item's life is in the log and a
resume takes a finished item's output from there. The output is the list of the items' outputs,
in input order.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncGenerator, Optional

from google.genai import types
from pydantic import Field

from runtime.workflow.base_node import BaseNode
from runtime.workflow.content_input import items_of
from runtime.workflow.context import Context
from runtime.workflow.errors import NodeInterruptedError, WorkflowConfigurationError


class ParallelWorker(BaseNode):
    node: BaseNode
    max_parallel_workers: Optional[int] = Field(default=None)
    """The most items running at once; None: no limit."""

    def __init__(self, /, *, node: BaseNode, max_parallel_workers: Optional[int] = None, **data: Any) -> None:
        if node.name == "__START__":
            raise WorkflowConfigurationError("A parallel worker cannot wrap START.")
        if max_parallel_workers is not None and max_parallel_workers < 1:
            raise WorkflowConfigurationError("max_parallel_workers must be greater than or equal to 1.")
        # A resumed run reruns the worker, which takes finished items from the log and runs the rest.
        data.setdefault("rerun_on_resume", True)
        super().__init__(name=node.name, description=node.description, node=node,
                         max_parallel_workers=max_parallel_workers, **data)

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        if isinstance(node_input, types.Content):  # the user's message: its items, as ADK reads them
            node_input = items_of(node_input, _item_type(self.node))
        items = node_input if isinstance(node_input, list) else [node_input]
        limit = self.max_parallel_workers or len(items)
        # Started in input order, so each item's run id (its path) is the same on every run; a new
        # item starts only once a running one has finished well (as ADK: none after one waits).
        runs: list[asyncio.Future] = []
        waits = False
        try:
            pending: set[asyncio.Future] = set()
            while (len(runs) < len(items) and not waits) or pending:
                while len(runs) < len(items) and len(pending) < limit and not waits:
                    runs.append(asyncio.ensure_future(ctx.run_node(self.node, items[len(runs)], use_sub_branch=True)))
                    pending.add(runs[-1])
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for run in done:
                    error = run.exception()
                    if isinstance(error, NodeInterruptedError):
                        waits = True
                    elif error is not None:
                        raise error  # the other items are stopped below
        finally:
            for run in runs:
                run.cancel()
            await asyncio.gather(*runs, return_exceptions=True)
        waiting = [i for run in runs if isinstance(run.exception(), NodeInterruptedError) for i in run.exception().interrupts]
        if waiting:  # some items wait for a person: so does this node; the others' outputs are in the log
            raise NodeInterruptedError(waiting)
        yield [run.result() for run in runs]


def _item_type(node: BaseNode) -> Any:
    """The type an item of the worker's node takes: its input_schema, else its `node_input` hint."""
    schema = node.input_schema
    if schema not in (None, Any, object) and not isinstance(schema, dict):
        return schema
    return getattr(node, "_hints", {}).get("node_input")
