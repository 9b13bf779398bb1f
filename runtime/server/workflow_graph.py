"""The graph the viewer draws for a workflow run: nodes and edges with the path the run took.

With the workflow's own graph (its app is served), every node and edge is drawn and the ones the
run went through are marked; without it (a stored session of an app not served here), the path
the run took is drawn alone, from the log (`projections.workflow.run_edges`, as `chronicle
workflow --format mermaid` draws it)."""

from __future__ import annotations

from typing import Any, Optional

from projections.workflow import NodeRun, run_edges

START = "START"


def _name(path: str) -> str:
    """A top-level node's name from its run's path (``wf/classify@1`` → ``classify``)."""
    return path.split("/")[1].split("@", 1)[0] if "/" in path else path


def _node(node_id: str, label: str, run: Optional[NodeRun]) -> dict[str, Any]:
    return {
        "id": node_id, "label": label, "taken": run is not None or node_id == START,
        "status": run.status if run else None, "attempts": run.attempts if run else 0,
        "seconds": run.seconds if run else None, "error": run.error if run else None,
        "path": run.path if run else None,
    }


def drawable(runs: list[NodeRun], graph: Any = None) -> dict[str, Any]:
    taken = run_edges(runs)
    if graph is None:
        nodes = [_node(START, START, None)] + [_node(r.path, r.path.split("/", 1)[-1], r) for r in runs]
        edges = [{"from": a, "to": b, "label": label, "taken": True, "dynamic": dynamic} for a, b, label, dynamic in taken]
        return {"nodes": nodes, "edges": edges, "whole_graph": False}
    last_run = {_name(r.path): r for r in runs if r.path.count("/") == 1}  # the latest run of each node
    followed = {(_name(a) if a != START else START, _name(b)) for a, b, _, _ in taken}
    names: list[str] = []
    for edge in graph.edges:
        for node in (edge.from_node, edge.to_node):
            name = START if node.name == "__START__" else node.name
            if name not in names:
                names.append(name)
    nodes = [_node(name, name, last_run.get(name)) for name in names]
    edges = []
    for edge in graph.edges:
        a = START if edge.from_node.name == "__START__" else edge.from_node.name
        b = edge.to_node.name
        label = "" if edge.route is None else ", ".join(str(r) for r in sorted(edge.routes(), key=str))
        edges.append({"from": a, "to": b, "label": label, "taken": (a, b) in followed, "dynamic": False})
    return {"nodes": nodes, "edges": edges, "whole_graph": True}
