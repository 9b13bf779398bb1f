"""The graph of a workflow: edges from the ways ADK lets you write them, checked when built.

`edges` items are chains `(START, a, b)`, where an element may be a tuple (fan-out/fan-in:
every pair is an edge) or, after the first, a route map `{route: node or tuple}`; or explicit
`Edge(from_node, to_node, route)`. A node's successors are the targets of its unrouted edges,
plus those whose route matches the route it emitted, or, when none matches, its DEFAULT_ROUTE edges.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict

from runtime.workflow.base_node import START, BaseNode
from runtime.workflow.errors import GraphValidationError, WorkflowConfigurationError

RouteValue = Union[bool, int, str]
DEFAULT_ROUTE = "__DEFAULT__"


class Edge(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    from_node: Any
    to_node: Any
    route: Optional[Union[RouteValue, list[RouteValue]]] = None

    def routes(self) -> set:
        if self.route is None:
            return {None}
        return set(self.route) if isinstance(self.route, list) else {self.route}


def as_node(node_like: Any) -> BaseNode:
    """A node from what an edge may name: a node, "START", an agent, a tool, or a function."""
    from runtime.agents.base_agent import BaseAgent
    from runtime.tools.base_tool import BaseTool
    from runtime.workflow.agent_node import AgentNode
    from runtime.workflow.function_node import FunctionNode
    from runtime.workflow.tool_node import ToolNode

    if isinstance(node_like, BaseNode):
        return node_like
    if node_like == "START":
        return START
    if isinstance(node_like, BaseAgent):
        built = AgentNode(name=node_like.name, description=node_like.description, agent=node_like,
                          # a task-mode agent runs again for each reply of the user's
                          rerun_on_resume=node_like.rerun_on_resume or getattr(node_like, "mode", None) == "task")
        if getattr(node_like, "parallel_worker", None):  # as ADK: the agent once per item of its list input
            from runtime.workflow.parallel_worker import ParallelWorker

            return ParallelWorker(node=built)
        return built
    if isinstance(node_like, BaseTool):
        return ToolNode(tool=node_like)
    if callable(node_like):
        return FunctionNode(node_like)
    raise GraphValidationError(
        f"Unknown node {node_like!r} ({type(node_like).__name__}): a graph takes nodes, agents, tools, functions or START."
    )


class Graph:
    """Nodes by name and edges, validated; answers which nodes a finished node triggers."""

    def __init__(self, items: list[Any]):
        self._built: dict[int, BaseNode] = {}
        self.edges: list[Edge] = []
        for item in items:
            if isinstance(item, Edge):
                self.edges.append(Edge(from_node=self._node(item.from_node), to_node=self._node(item.to_node), route=item.route))
            elif isinstance(item, tuple):
                self._add_chain(item)
            else:
                raise WorkflowConfigurationError(
                    f"A workflow edge is a tuple (a chain) or an Edge, got {type(item).__name__}: {item!r}."
                )
        self.nodes: dict[str, BaseNode] = {}
        for edge in self.edges:
            for n in (edge.from_node, edge.to_node):
                self.nodes.setdefault(n.name, n)
        self._validate()
        self.predecessors = {name: [] for name in self.nodes}
        for edge in self.edges:
            if edge.from_node.name not in self.predecessors[edge.to_node.name]:
                self.predecessors[edge.to_node.name].append(edge.from_node.name)
        self.terminal = [n for n in self.nodes if n != START.name and not self.outgoing[n]]

    def _node(self, node_like: Any) -> BaseNode:
        key = id(node_like)
        if key not in self._built:
            self._built[key] = as_node(node_like)
        return self._built[key]

    def _targets(self, element: Any) -> list[BaseNode]:
        if isinstance(element, tuple):
            return [self._node(e) for e in element]
        if isinstance(element, dict):
            raise WorkflowConfigurationError("A route map must follow a node in a chain, not start it or follow another map.")
        return [self._node(element)]

    def _add_chain(self, chain: tuple) -> None:
        for source, target in zip(chain, chain[1:]):
            sources = self._targets(source)
            if isinstance(target, dict):
                if not target:
                    raise GraphValidationError("A route map needs at least one {route: node} entry.")
                for route, to in target.items():
                    if not isinstance(route, (bool, int, str)):
                        raise GraphValidationError(f"Route {route!r} must be a str, int or bool.")
                    for s in sources:
                        for t in self._targets(to):
                            self.edges.append(Edge(from_node=s, to_node=t, route=route))
            else:
                for s in sources:
                    for t in self._targets(target):
                        self.edges.append(Edge(from_node=s, to_node=t))

    def _validate(self) -> None:
        names = Counter(n.name for n in {id(n): n for e in self.edges for n in (e.from_node, e.to_node)}.values())
        duplicates = sorted(name for name, count in names.items() if count > 1)
        if duplicates:
            raise GraphValidationError(
                f"Duplicate node names {duplicates}: distinct nodes share a name. Reuse the same node "
                "object, or give each node its own name."
            )
        if START.name not in self.nodes:
            raise GraphValidationError("The graph has no edge from START; begin a chain with START.")
        seen: dict[tuple[str, str], set] = {}
        for edge in self.edges:
            source, target = edge.from_node.name, edge.to_node.name
            if target == START.name:
                raise GraphValidationError(f"An edge from {source!r} goes into START; nothing may lead into START.")
            if source == START.name and edge.route is not None:
                raise GraphValidationError(f"The edge from START to {target!r} has a route; edges from START take none.")
            if isinstance(edge.route, list) and DEFAULT_ROUTE in edge.route:
                raise GraphValidationError("DEFAULT_ROUTE cannot share an edge with other routes; give it its own edge.")
            routes = edge.routes()
            earlier = seen.setdefault((source, target), set())
            if earlier and (None in earlier or None in routes or earlier & routes):
                raise GraphValidationError(f"Duplicate edge from {source!r} to {target!r}.")
            earlier |= routes
        self.outgoing: dict[str, list[Edge]] = {name: [] for name in self.nodes}
        for edge in self.edges:
            self.outgoing[edge.from_node.name].append(edge)
        reachable, stack = set(), [START.name]
        while stack:
            name = stack.pop()
            if name not in reachable:
                reachable.add(name)
                stack.extend(e.to_node.name for e in self.outgoing[name])
        unreachable = sorted(set(self.nodes) - reachable)
        if unreachable:
            raise GraphValidationError(f"Nodes {unreachable} cannot be reached from START.")
        self._check_unconditional_cycles()

    def _check_unconditional_cycles(self) -> None:
        """A depth-first walk over unrouted edges (iterative: graphs may be long chains)."""
        state: dict[str, int] = {}  # 1: on the current path, 2: done
        for root in self.nodes:
            if root in state:
                continue
            path, stack = [root], [iter(self.outgoing[root])]
            state[root] = 1
            while stack:
                edge = next(stack[-1], None)
                if edge is None:
                    state[path.pop()] = 2
                    stack.pop()
                    continue
                if edge.route is not None:
                    continue
                nxt = edge.to_node.name
                if state.get(nxt) == 1:
                    cycle = path[path.index(nxt):] + [nxt]
                    raise GraphValidationError(
                        f"Unconditional cycle {' -> '.join(cycle)}: a loop needs at least one routed edge."
                    )
                if nxt not in state:
                    state[nxt] = 1
                    path.append(nxt)
                    stack.append(iter(self.outgoing[nxt]))

    def next_nodes(self, name: str, route: Any) -> list[str]:
        emitted = set(route) if isinstance(route, list) else {route}
        chosen, defaults, matched = [], [], False
        for edge in self.outgoing[name]:
            if edge.route is None:
                chosen.append(edge.to_node.name)
            elif edge.route == DEFAULT_ROUTE:
                defaults.append(edge.to_node.name)
            elif edge.routes() & emitted:
                chosen.append(edge.to_node.name)
                matched = True
        return chosen if matched else chosen + defaults
