"""Workflow: a graph of nodes; usable as a node, as an App's root_agent, or as a Runner's agent."""

from __future__ import annotations

from typing import Any, AsyncGenerator, Optional

from pydantic import ConfigDict, Field, PrivateAttr

from domain.events import Event
from projections.workflow import WorkflowRuns, fold_all
from runtime.agents.base_agent import BaseAgent
from runtime.invocation_context import InvocationContext
from runtime.workflow.agent_node import USER_TURN
from runtime.workflow.base_node import BaseNode
from runtime.workflow.context import Context
from runtime.workflow.graph import Graph
from runtime.workflow.interrupts import answers
from runtime.workflow.scheduler import GraphRun


class Workflow(BaseAgent, BaseNode):
    """`Workflow(name=..., edges=[...])`. As the Runner's root agent its input is the user's message
    text; as a node, its node input. Its output is its terminal node's output (a dict by node name
    when several terminal nodes ran)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    edges: list[Any] = Field(default_factory=list)
    rerun_on_resume: bool = True
    max_concurrency: Optional[int] = None
    """Most graph-scheduled nodes running at once; None or <= 0 means no limit."""
    _graph: Optional[Graph] = PrivateAttr(default=None)

    def __init__(self, /, **data: Any) -> None:
        super().__init__(**data)
        self._graph = Graph(self.edges) if self.edges else None  # a malformed graph is refused here

    @property
    def graph(self) -> Optional[Graph]:
        return self._graph

    def _graph_run(
        self, ctx: InvocationContext, path: str, log: WorkflowRuns, answers: dict[str, Any], state_schema: Any
    ) -> GraphRun:
        return GraphRun(
            self._graph, ctx=ctx, path=path, author=self.name, log=log, answers=answers, state_schema=self.state_schema or state_schema,
            max_concurrency=self.max_concurrency,
        )

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """As the Runner's agent: a resumed invocation reads its events once, folded."""
        if self._graph is None:
            return
        # A resumed invocation, or one whose message answers a node's request, goes on from its log.
        answering = ctx.user_content is not None and any(p.function_response for p in ctx.user_content.parts or [])
        replying = not answering and _continued(ctx)  # the user replies to a task-mode agent that waits
        events = ctx.invocation_events(log_only=True) if ctx.resuming or answering or replying else []
        log, found = fold_all(events), answers(events)
        if replying:
            found[USER_TURN] = ctx.user_content
        # The workflow's input is the invocation's message, not an answer that resumes it.
        message = next((e.content for e in events if e.author == "user" and e.content and not e.get_function_responses()),
                       ctx.user_content)
        if replying:  # the invocation's message stays its first one (an agent node without input sees it)
            ctx = ctx.model_copy(update={"user_content": message})
        run = self._graph_run(ctx, f"{self.name}@1", log, found, None)  # as ADK: the root's run id too
        async for event in run.events(message):  # as ADK: the message itself (runtime.workflow.content_input)
            yield event
        if any(i != USER_TURN for i in run.interrupts):
            # a resumable invocation pauses; it has not finished (as ADK: a task agent waiting for
            # the user's reply does not pause it, the reply goes on in it)
            ctx.paused_agents.add(self.name)

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        """As a node of another workflow."""
        if self._graph is None:
            return
        log = ctx.workflow_log or WorkflowRuns()
        run = self._graph_run(ctx.invocation_context, ctx.node_path, log, ctx.workflow_answers, ctx.state_schema)
        async for event in run.events(node_input):
            yield event
        if run.interrupts:
            ctx.interrupts.extend(run.interrupts)  # waits while a node inside waits, on the same requests
            return
        end = run.checkpoints.end()  # as the Runner's agent, BaseAgent records its end
        if end is not None:
            yield end
        outputs = run.terminal_outputs
        ctx.output = next(iter(outputs.values())) if len(outputs) == 1 else (outputs or None)
        ctx.output_said = True  # as ADK: its terminal nodes' events said it; no event of its own (its end fact has it)


def _continued(ctx: InvocationContext) -> bool:
    """Whether the message just stored continues an invocation that has events already (the
    Runner gives a reply to a waiting task-mode agent its invocation: agent_node.waiting_for_user)."""
    events = ctx.session.events
    return ctx.user_content is not None and len(events) >= 2 and events[-2].invocation_id == ctx.invocation_id


def as_root_agent(node_like: Any) -> BaseAgent:
    """What `Runner(node=...)` runs: a Workflow as it is; any other node in a one-node workflow of
    the same name."""
    if isinstance(node_like, BaseAgent):
        return node_like
    from runtime.workflow.base_node import START
    from runtime.workflow.graph import as_node

    built = as_node(node_like)
    return Workflow(name=built.name, description=built.description, edges=[(START, built)])
