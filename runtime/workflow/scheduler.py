"""Running one workflow graph: nodes as tasks, their events committed one at a time, in order.

Each node runs in its own task and hands every event it makes to the workflow's generator, then
waits until the Runner has committed it (so code after a `yield` sees the stored state, and a
crash never loses a fact a later one relies on). A resumed invocation passes the fold of its
events (`WorkflowRuns`): a node whose path finished there is not run; its output and route come
from the log.

The events are google-adk 2.13's: a node's messages, its output, route and state changes, its
input requests and its error, authored by the workflow (an agent's by the agent), at
``wf@1/node@1``. The node's life rides on them: its start (input, triggering runs) on its first
event, its end on the event that carries its output; only a node that ends with nothing to say
gets an event of its own for it (see docs/workflows.md).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import TYPE_CHECKING, Any, AsyncGenerator, Callable, Optional

from google.genai import types

from domain.events import Event, EventActions, NodeInfo
from projections.workflow import NODE_FACT_KEY, WorkflowRuns, node_fact
from runtime.invocation_context import InvocationContext
from runtime.workflow.base_node import START, BaseNode
from runtime.workflow.checkpoints import Checkpoints, is_checkpoint
from runtime.workflow.context import Context
from runtime.workflow.errors import NodeInterruptedError, NodeTimeoutError
from runtime.workflow.facts import as_json, describe, fact_event, handed, hide_if_silent, recorded
from runtime.workflow.interrupts import credential_requests, is_request_input, request_event
from runtime.workflow.state_schema import check_state_delta

if TYPE_CHECKING:
    from runtime.workflow.graph import Graph



WAITING = object()
"""What a node waiting for input returns instead of an output: its successors do not run yet."""


class GraphRun:
    """One run of a graph at `path` (``wf`` or ``wf/inner@1``)."""

    def __init__(
        self,
        graph: Optional[Graph],
        *,
        ctx: InvocationContext,
        path: str,
        author: str,
        log: WorkflowRuns,
        answers: dict[str, Any],
        state_schema: Any,
        max_concurrency: Optional[int] = None,
    ):
        self.graph = graph
        self.ctx = ctx
        self.path = path
        self.author = author  # who the events of the graph's nodes are by: the workflow (as ADK)
        self.log = log
        self.answers = answers  # the client's answers to input requests, by interrupt id
        self.interrupts: list[str] = []  # input requests still unanswered: the invocation pauses
        self.state_schema = state_schema
        self.max_concurrency = max_concurrency if max_concurrency and max_concurrency > 0 else None
        self._queue: asyncio.Queue = asyncio.Queue()
        self._runs: Counter = Counter()
        self._waiting: dict[str, list[str]] = {}  # path -> the requests its run waits on
        self._starts: dict[str, tuple[dict[str, Any], float]] = {}
        self._branches: dict[str, str] = {}  # path -> the branch its run is on ("" for none)  # path -> its start fact, until its first event
        self.terminal_outputs: dict[str, Any] = {}
        self._told_errors: set[int] = set()  # the errors a failed event already records (by id)
        self.checkpoints = Checkpoints(ctx, author)  # a resumable app's snapshots (none otherwise)

    # -- the generator the workflow yields from ---------------------------------------------

    async def events(self, node_input: Any) -> AsyncGenerator[Event, None]:
        # (node name, its input, the paths of the runs that triggered it, its branch: see _branch)
        starts = self.graph.next_nodes(START.name, None)
        base = self.ctx.branch or ""
        pending: list[tuple[str, Any, list[str], tuple[str, bool]]] = [
            (name, node_input, [], (base, len(starts) > 1)) for name in starts
        ]
        arrivals: dict[str, dict[str, tuple[str, Any]]] = {}  # join -> predecessor -> (its path, output)
        tasks: dict[asyncio.Task, str] = {}
        deferred: list[tuple[str, Any]] = []  # runs that ended while nodes were being started
        answered: set[str] = set()  # runs whose output is a person's answer (they do not run)
        try:
            while pending or tasks:
                while (at := self._next_start(pending, tasks)) is not None:
                    name, value, sources, lane = pending.pop(at)
                    self._runs[name] += 1
                    path = f"{self.path}/{name}@{self._runs[name]}"
                    self._branches[path] = _branch(*lane, f"{name}@{self._runs[name]}")
                    done = self._finished_run(path)
                    if done is not None:  # no task for a node the log says finished: a resume costs its read only
                        replayed = self.checkpoints.replayed(name, path, done.output)
                        if replayed is not None:
                            yield replayed
                        pending.extend(self._successors(name, path, done.output, done.route, arrivals))
                        continue
                    node = self.graph.nodes[name]
                    task = asyncio.create_task(self.run_node(node, path, value, sources))
                    tasks[task] = path
                    task.add_done_callback(lambda t: self._queue.put_nowait(("done", t)))
                    if self._takes_answer(node, path):  # as ADK: no run, so no snapshot; its output said on its end
                        answered.add(path)
                        continue
                    checkpoint = self.checkpoints.started(name)
                    if checkpoint is not None:
                        yield checkpoint
                        # as ADK: what the node said while its snapshot was committed comes before the next start
                        async for event in self._said_meanwhile(deferred):
                            yield event
                if not tasks and not deferred:
                    continue  # the log had the rest: nothing runs, nothing to wait for
                kind, item = deferred.pop(0) if deferred else await self._queue.get()
                if kind == "event":
                    event, committed = item
                    yield event
                    if not committed.done():
                        committed.set_result(None)
                    continue
                if item not in tasks:
                    continue  # its end was handled with an earlier one's
                # as ADK: every run that has ended by now is handled, in the order they started (a run
                # whose last event was just committed ends first)
                await asyncio.sleep(0)
                for ended in [t for t in tasks if t.done()]:
                    path = tasks.pop(ended)
                    if ended.cancelled():
                        continue
                    error = ended.exception()
                    if error is not None:
                        async for event in self._cancel(tasks):
                            yield event
                        raise error
                    name = _name(path)
                    output, route = ended.result()
                    if output is WAITING:
                        checkpoint = self.checkpoints.waiting(name, self._waiting.get(path, []))
                    elif path in answered:
                        checkpoint = self.checkpoints.replayed(name, path, output)
                        pending.extend(self._successors(name, path, output, route, arrivals))
                    else:
                        checkpoint = self.checkpoints.completed(name)
                        pending.extend(self._successors(name, path, output, route, arrivals))
                    if checkpoint is not None:
                        yield checkpoint
        finally:
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)

    async def _said_meanwhile(self, deferred: list[tuple[str, Any]]) -> AsyncGenerator[Event, None]:
        """The events the nodes handed over while the last snapshot was being committed (runs that
        ended meanwhile wait in `deferred`, in order)."""
        await asyncio.sleep(0)  # a node just started runs up to its first event
        while not self._queue.empty():
            kind, item = self._queue.get_nowait()
            if kind != "event":
                deferred.append((kind, item))
                continue
            event, committed = item
            yield event
            if not committed.done():
                committed.set_result(None)

    async def run_alone(
        self, node: BaseNode, path: str, node_input: Any, send: Callable[[Event], Any]
    ) -> tuple[Any, Any]:
        """Runs one node at `path` outside a graph (a node an agent calls as a tool): each event
        goes to `send`, which returns once it is committed. Returns (output, route), or (WAITING,
        None) while the node waits for a person's answer."""
        task = asyncio.ensure_future(self.run_node(node, path, node_input, []))
        task.add_done_callback(lambda t: self._queue.put_nowait(("done", t)))
        try:
            while True:
                kind, item = await self._queue.get()
                if kind == "done":
                    return item.result()
                event, committed = item
                await send(event)
                committed.set_result(None)
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    def _successors(
        self, name: str, path: str, output: Any, route: Any, arrivals: dict[str, dict[str, tuple[str, Any]]]
    ) -> list[tuple[str, Any, list[str], tuple[str, bool]]]:
        """What the finished run of `name` at `path` triggers: (node, its input, the triggering paths,
        its lane). A join is triggered once every predecessor has arrived (`arrivals` keeps those
        that have), on the branch its predecessors share; as ADK, a run that triggers several
        nodes puts each on a branch of its own."""
        if name in self.graph.terminal:
            self.terminal_outputs[name] = output
        triggered = []
        targets = self.graph.next_nodes(name, route)
        for target in targets:
            if not self.graph.nodes[target].requires_all_predecessors:
                triggered.append((target, output, [path], (self._branches[path], len(targets) > 1)))
                continue
            waiting = arrivals.setdefault(target, {})
            waiting[name] = (path, output)
            expected = [p for p in self.graph.predecessors[target] if p != START.name]
            if all(p in waiting for p in expected):
                paths = [waiting[p][0] for p in expected]
                shared = _common_branch([self._branches[p] for p in paths])
                triggered.append((target, {p: waiting[p][1] for p in expected}, paths, (shared, False)))
                del arrivals[target]
        return triggered

    def _next_start(self, pending: list[tuple[str, Any, list[str], tuple[str, bool]]], tasks: dict) -> Optional[int]:
        """Which pending trigger starts next: the first whose node is not running already (as ADK,
        a node's runs follow one another), while the concurrency cap allows; None for none."""
        if self.max_concurrency is not None and len(tasks) >= self.max_concurrency:
            return None
        running = {_name(path) for path in tasks.values()}
        return next((i for i, trigger in enumerate(pending) if trigger[0] not in running), None)

    def _takes_answer(self, node: BaseNode, path: str) -> bool:
        """Whether the run at `path` waited for input and takes the answer as its output without
        running again (a node with rerun_on_resume=False; an agent reads its answers itself)."""
        earlier = self.log.nodes.get(path)
        return (
            earlier is not None and earlier.status == "waiting" and not node.rerun_on_resume
            and getattr(node, "agent", None) is None and any(i in self.answers for i in earlier.interrupts)
        )

    def _finished_run(self, path: str) -> Any:
        """The run at `path` if the log says it finished (before a crash or a pause), else None."""
        earlier = self.log.nodes.get(path)
        return earlier if earlier is not None and earlier.finished else None

    async def _cancel(self, tasks: dict[asyncio.Task, str]) -> AsyncGenerator[Event, None]:
        """Stops the nodes still running (another one failed); a run the log has seen start is
        recorded as cancelled (one that made no event yet left nothing to close)."""
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for path in tasks.values():
            if self._starts.pop(path, None) is None:
                yield hide_if_silent(fact_event(self.ctx, author=self.author, path=path, status="cancelled"))
        tasks.clear()

    async def _emit(self, event: Event) -> None:
        """Hands `event` to the Runner and waits until it is committed; the first event of a run
        carries the run's start."""
        start = self._starts.pop(event.node_info.path, None)
        if start is not None:
            _with_start(event, *start)
        committed = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(("event", (event, committed)))
        await committed

    def _author(self, node: BaseNode) -> str:
        """Who a node's own events are by: the agent for an agent node, else the workflow (as ADK)."""
        agent = getattr(node, "agent", None)
        return agent.name if agent is not None else self.author

    # -- one node -------------------------------------------------------------------------

    async def run_node(self, node: BaseNode, path: str, node_input: Any, sources: list[str]) -> tuple[Any, Any]:
        """Runs `node` at `path` (retrying as its RetryConfig says); returns (output, route).
        `sources`: the paths of the runs whose outputs triggered it (for drawing the path taken)."""
        done = self._finished_run(path)
        if done is not None:  # a dynamic child that finished before a crash or pause: from the log
            return done.output, done.route
        invocation = self.ctx.model_copy(update={"branch": self._branches.get(path) or None})
        earlier = self.log.nodes.get(path)
        resume_inputs: dict[str, Any] = {}
        if earlier is not None and earlier.status == "waiting":
            resume_inputs = {i: self.answers[i] for i in earlier.interrupts if i in self.answers}
            if not resume_inputs:
                self._wait_on(path, earlier.interrupts)
                return WAITING, None  # still unanswered
            # the answer is the node's output; an agent's answers are its own to read (it runs again)
            if self._takes_answer(node, path):
                answer = next(iter(resume_inputs.values())) if len(resume_inputs) == 1 else resume_inputs
                # as ADK, no event: the answer's own (the client's) said it; the log keeps the fact
                answered = fact_event(invocation, author=self._author(node), path=path, status="completed")
                node_fact(answered)["output"] = as_json(answer)
                await self._emit(hide_if_silent(answered))
                return answer, None
        # A node run again takes the input the log recorded for it (the same a live run would get).
        node_input = earlier.input if earlier is not None and earlier.input is not None else handed(node_input)
        status = "resumed" if earlier is not None else "started"
        start = {"status": status, "input": recorded(node_input), "attempt": 1, "sources": sources}
        if isinstance(node_input, types.Content):
            start["content"] = True  # the fold gives it back as the message (projections.workflow)
        self._starts[path] = (start, time.time())  # recorded on the run's first event (see _emit)
        author = self._author(node)
        attempt = 1
        while True:
            ctx = Context(
                invocation,
                node_path=path,
                attempt_count=attempt,
                state_schema=node.state_schema or self.state_schema,
                run_child=self._child_runner(path),
                workflow_log=self.log,
                workflow_answers=self.answers,
                resume_inputs=resume_inputs,
            )
            try:
                output, route = await self._attempt(node, ctx, path, node_input)
            except NodeInterruptedError as waiting:  # a dynamic child waits for input: so does this node
                ctx.interrupts.extend(waiting.interrupts)
                output = route = None
            except Exception as error:  # noqa: BLE001 - a node's failure, recorded; retried or raised
                retry = node.retry_config
                if retry is not None and attempt < retry.attempts and retry.retries_on(error):
                    await self._emit(
                        fact_event(invocation, author=author, path=path, status="retried", error=error, attempt=attempt)
                    )
                    await asyncio.sleep(retry.delay(attempt))
                    attempt += 1
                    continue
                # as ADK, a node's error event is the workflow's (an agent node's too)
                if id(error) not in self._told_errors:
                    self._told_errors.add(id(error))
                    await self._emit(fact_event(invocation, author=self.author, path=path, status="failed", error=error, attempt=attempt))
                else:  # a dynamic child's error, which its event told (as ADK, once): the parent's end is log-only
                    failed = fact_event(invocation, author=self.author, path=path, status="failed", attempt=attempt)
                    node_fact(failed)["error"] = describe(error)
                    await self._emit(hide_if_silent(failed))
                raise
            if ctx.interrupts or (node.wait_for_output and output is None and route is None):
                # waiting for a person's input; or, with wait_for_output, for a later trigger of the node
                actions = ctx.take_actions()
                if ctx.interrupts and ctx.waiting_told == ctx.interrupts and not actions.state_delta and not actions.artifact_delta:
                    self._wait_on(path, ctx.interrupts)  # its last request's event said so
                    return WAITING, None
                await self._emit(hide_if_silent(
                    fact_event(invocation, author=author, path=path, status="waiting", actions=actions,
                               interrupts=ctx.interrupts)
                ))
                self._wait_on(path, ctx.interrupts)
                return WAITING, None
            output = as_json(output)
            actions = ctx.take_actions()
            held = ctx.held
            if held is None and ctx.answered and route is None and not actions.state_delta and not actions.artifact_delta:
                return output, route  # its answer's event said it completed (an agent's)
            # The run's end rides on its last output/route/state event (ADK's last event), else on
            # an event of its own; what that event does not say, its fact does.
            # (as ADK: an output or route no event said yet, ctx.output's say, goes on the last event)
            if ctx.output_delegated:
                said_output = None
            else:
                said_output = as_json(held.output) if held is not None else (None if ctx.output_said else output)
            actions.route = held.actions.route if held is not None else (None if ctx.route_said else route)
            completed = fact_event(invocation, author=author, path=path, status="completed", output=said_output, actions=actions)
            fact = node_fact(completed)
            if said_output != output:
                fact["output"] = output
            if actions.route != route:
                fact["route"] = route
            await self._emit(hide_if_silent(completed))
            return output, route

    async def _attempt(self, node: BaseNode, ctx: Context, path: str, node_input: Any) -> tuple[Any, Any]:
        if node.timeout is None:
            return await self._consume(node, ctx, path, node_input)
        try:
            async with asyncio.timeout(node.timeout):
                return await self._consume(node, ctx, path, node_input)
        except TimeoutError as error:
            raise NodeTimeoutError(node_name=node.name, timeout=node.timeout) from error

    async def _consume(self, node: BaseNode, ctx: Context, path: str, node_input: Any) -> tuple[Any, Any]:
        output: Any = None
        agen = node.run(ctx=ctx, node_input=node_input)
        try:
            async for item in agen:
                asked = [item.interrupt_id] if is_request_input(item) else credential_requests(item)
                if asked:
                    ctx.interrupts.extend(asked)
                    item = request_event(item) if is_request_input(item) else item
                    # the run waits on it: said on the request's event (ADK's only event for it)
                    item.custom_metadata = {NODE_FACT_KEY: {"status": "waiting", "interrupts": list(ctx.interrupts)}}
                    ctx.waiting_told = list(ctx.interrupts)
                elif not isinstance(item, Event):
                    item = Event(output=item)  # as ADK: a value is an event with that output
                # already placed: a node's inside this one, or a nested workflow's checkpoint (an
                # agent node's own end is at the node's path, as in ADK)
                if item.node_info.path or (is_checkpoint(item) and getattr(node, "agent", None) is None):
                    await self._send_held(ctx, path)
                    await self._emit(item)
                    continue
                fact = (item.custom_metadata or {}).get(NODE_FACT_KEY)
                if fact is not None and fact.get("status") == "completed":  # an answer that is the node's output
                    ctx.answered = True
                    output = fact.get("output", item.output)
                elif item.output is not None:
                    output = item.output
                if item.actions.route is not None:
                    ctx.route = item.actions.route
                check_state_delta(ctx.state_schema, item.actions.state_delta)
                if item.content is None and _only_output_route_state(item):
                    # held until the next one, so that the run's end may ride on the last (code after the
                    # yield sees its state through ctx.state's pending changes)
                    await self._send_held(ctx, path)
                    ctx.state.update(item.actions.state_delta)
                    ctx.held = Event(output=item.output, actions=EventActions(route=item.actions.route))
                    continue
                await self._send_held(ctx, path)
                pending = ctx.take_actions()
                item.actions.state_delta = {**pending.state_delta, **item.actions.state_delta}
                item.actions.artifact_delta = {**pending.artifact_delta, **item.actions.artifact_delta}
                item.invocation_id = item.invocation_id or self.ctx.invocation_id
                item.author = item.author or self._author(node)
                item.branch = item.branch or ctx.invocation_context.branch
                item.node_info = item.node_info.model_copy(update={"path": path})  # (an agent's answer says message_as_output)
                ctx.output_said = ctx.output_said or item.output is not None
                ctx.route_said = ctx.route_said or item.actions.route is not None
                await self._emit(item)
        finally:
            await agen.aclose()
        return (ctx.output if ctx.output is not None else output), ctx.route

    async def _send_held(self, ctx: Context, path: str) -> None:
        """Sends the run's held output/route/state event as an event of its own (another follows)."""
        held, ctx.held = ctx.held, None
        if held is None:
            return
        actions = ctx.take_actions()
        actions.route = held.actions.route
        await self._emit(Event(
            invocation_id=self.ctx.invocation_id, author=self.author, branch=ctx.invocation_context.branch,
            output=as_json(held.output), actions=actions, node_info=NodeInfo(path=path),
        ))

    def _wait_on(self, path: str, interrupts: list[str]) -> None:
        """The run at `path` waits on these requests; so does the invocation (a parent waits on its
        child's too: listed once)."""
        self._waiting[path] = list(interrupts)
        self.interrupts.extend(i for i in interrupts if i not in self.interrupts)

    def _child_runner(self, parent_path: str) -> Callable[..., Any]:
        async def run_child(
            node_like: Any, node_input: Any, *, name: Optional[str] = None, parent: Optional[Context] = None,
            use_sub_branch: bool = False, use_as_output: bool = False,
        ) -> Any:
            from runtime.workflow.graph import as_node

            child = as_node(node_like)
            if name is not None:
                child = child.model_copy(update={"name": name})
            if parent is not None:
                await self._send_held(parent, parent_path)  # what the parent said before it, goes first
                parent.output_delegated = parent.output_delegated or use_as_output
            key = f"{parent_path}/{child.name}"
            self._runs[key] += 1
            path = f"{key}@{self._runs[key]}"
            self._branches[path] = _branch(self._branches.get(parent_path, ""), use_sub_branch, f"{child.name}@{self._runs[key]}")
            output, _ = await self.run_node(child, path, node_input, [parent_path])
            if output is WAITING:
                raise NodeInterruptedError(self._waiting[path])
            return output

        return run_child


def _name(path: str) -> str:
    """The node a run's path names (``wf@1/a@2`` -> ``a``)."""
    return path.rsplit("/", 1)[-1].split("@", 1)[0]


def _branch(base: str, sub: bool, run: str) -> str:
    """A run's branch: its trigger's, or (`sub`: one of several lanes) a branch of it named by the run."""
    if not sub:
        return base
    return f"{base}.{run}" if base else run


def _common_branch(branches: list[str]) -> str:
    """The branch that `branches` all lie on (a join's: where its lanes meet)."""
    parts = [b.split(".") if b else [] for b in branches]
    common = []
    for segments in zip(*parts):
        if len(set(segments)) > 1:
            break
        common.append(segments[0])
    return ".".join(common)


def _with_start(event: Event, start: dict[str, Any], started_at: float) -> None:
    """`event`, the first of a run, also says the run started: its fact gains the start's input
    and triggering runs (a quick node's whole life is then one event), or, on a message, is the
    start itself."""
    fact = node_fact(event)
    if fact is None:
        event.custom_metadata = {**(event.custom_metadata or {}), NODE_FACT_KEY: dict(start)}
        return
    fact.update({k: v for k, v in start.items() if k not in ("status", "attempt")}, started_at=started_at)
    fact.setdefault("attempt", start["attempt"])
    if start["status"] == "resumed":
        fact["resumed"] = True


def _only_output_route_state(event: Event) -> bool:
    """An event that says no more than a node's output, route or state changes."""
    return not (event.actions.model_fields_set - {"state_delta", "route"}) and not event.long_running_tool_ids
