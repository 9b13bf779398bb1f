"""NodeTool: a workflow, a FunctionNode or an `@node` as a tool of an LlmAgent (google-adk 2.13's
`google.adk.tools._node_tool`; an agent wraps the nodes in its `tools` itself).

The model sees a declaration whose parameters are the node's input: its `input_schema`, a
function node's parameters (the call's arguments bind them by name), or a workflow's entry
node's. A call runs the node at `<agent path>/<tool>@<call id>`, on the branch `<tool>@<call id>`:
its events (messages, input requests) are committed before the call's result, which is the node's
output (a value that is not a dict as `{"result": value}`); the model sees only that result. A
node that asks a person (RequestInput) leaves the call without a result: the agent stops, and the
answer runs the call again, the node resuming from what the log recorded of its run.
"""

from __future__ import annotations

import inspect
from typing import Any, Optional

from google.genai import types
from pydantic import TypeAdapter, ValidationError

from runtime.tools import tool_events
from runtime.tools.base_tool import BaseTool
from runtime.tools.declarations import build_function_declaration
from runtime.tools.tool_context import ToolContext
from runtime.workflow.base_node import START, BaseNode
from runtime.workflow.errors import WorkflowDataError


class NodeTool(BaseTool):
    """A node called by the model."""

    emits_events = True  # its node's events come before its result (runtime.tools.tool_events)

    def __init__(self, node: BaseNode, name: Optional[str] = None, description: Optional[str] = None) -> None:
        from runtime.agents.base_agent import BaseAgent
        from runtime.workflow.function_node import FunctionNode
        from runtime.workflow.workflow import Workflow

        if isinstance(node, BaseAgent) and not isinstance(node, Workflow):
            raise ValueError(
                f"Agent '{node.name}' cannot be wrapped as a NodeTool. Agents should be invoked as Sub-Agents instead."
            )
        self.given = node  # the node as the agent's tools list has it
        if isinstance(node, FunctionNode) and node.parameter_binding != "node_input":
            node = node.model_copy(update={"parameter_binding": "node_input"})  # the call's arguments bind it
        resolved, schema = input_schema_of(node)
        if not resolved:
            raise ValueError(
                f"Node '{node.name}' does not have an input_schema defined. NodeTool requires an explicit "
                "Pydantic input_schema on the wrapped node."
            )
        self.node = node
        self.input_schema = schema
        super().__init__(
            name=name or node.name,
            description=description or node.description or _doc(node) or f"Executes the node: {node.name}",
        )

    def _json_schema(self) -> Optional[dict[str, Any]]:
        return None if self.input_schema is None else _to_json_schema(self.input_schema)

    def _get_declaration(self) -> types.FunctionDeclaration:
        declaration = types.FunctionDeclaration(name=self.name, description=self.description)
        schema = self._json_schema()
        if schema is not None:
            if schema.get("type") != "object":  # the API wants an object: a single value is its "request"
                schema = {"type": "object", "properties": {"request": schema}, "required": ["request"]}
            declaration.parameters_json_schema = schema
        if self.node.output_schema is not None:
            declaration.response_json_schema = _to_json_schema(self.node.output_schema)
        return declaration

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        schema = self._json_schema()
        if schema is not None and schema.get("type") != "object":
            if "request" not in args:
                return _argument_error(self.name, 'Missing required argument "request".')
            node_input: Any = args["request"]
        else:
            node_input = args
        try:
            node_input = self._validated(node_input)
        except (ValidationError, WorkflowDataError) as error:
            return _argument_error(self.name, error)  # as a FunctionTool's: the model may correct itself
        output = await run_as_tool(self.node, self.name, node_input, tool_context)
        return {"result": None} if output is None else output

    def _validated(self, node_input: Any) -> Any:
        from runtime.workflow.function_node import FunctionNode

        if isinstance(self.node, FunctionNode) and self.node.input_schema is None:
            self.node._arguments(None, node_input)  # type: ignore[arg-type] - raises for a missing or unfit argument
            return node_input
        schema = self.input_schema
        if schema is None or isinstance(schema, (dict, types.Schema)):
            return node_input
        value = TypeAdapter(schema).validate_python(node_input)
        return value.model_dump(exclude_none=True) if hasattr(value, "model_dump") else value


async def run_as_tool(
    node: BaseNode, name: str, node_input: Any, tool_context: ToolContext, *, numbered: bool = False
) -> Any:
    """Runs `node` for the call `tool_context` is of, committing its events as they come; its
    output, or tool_events.WAITING while it waits for a person. Its branch is `<name>@<call id>`
    and so is its path's last segment, or, `numbered`, `<name>@<n>` (its n-th run under the agent,
    as 2.13 numbers a single-turn sub-agent's runs)."""
    from projections.workflow import fold_all
    from runtime.agents.node_path import agent_node_path
    from runtime.workflow.agent_node import USER_TURN
    from runtime.workflow.interrupts import answers
    from runtime.workflow.scheduler import WAITING, GraphRun

    invocation = tool_context._invocation_context
    call_id = tool_context.function_call_id
    segment = f"{name}@{call_id}" if call_id else name  # each call its own run, resumed by its id
    branch = f"{invocation.branch}.{segment}" if invocation.branch else segment
    agent = invocation.agent
    agent_path = agent_node_path(agent.root_agent, agent.name)
    events = invocation.invocation_events(log_only=True)  # what an earlier run of this call recorded
    if numbered:
        segment = _numbered_run(events, f"{agent_path}/{name}@" if agent_path else f"{name}@", branch)
    path = f"{agent_path}/{segment}" if agent_path else segment
    log, found = fold_all(events), answers(events)
    earlier = log.nodes.get(path)
    if earlier is not None and earlier.status == "waiting" and USER_TURN in earlier.interrupts:
        # a delegated task waits for the user: the call runs again on the user's reply
        found[USER_TURN] = next(e.content for e in reversed(events) if e.author == "user")
    run = GraphRun(None, ctx=invocation, path=agent_path, author=node.name, log=log, answers=found, state_schema=None)
    run._branches[path] = branch
    output, _ = await run.run_alone(node, path, node_input, tool_events.emit)
    return tool_events.WAITING if output is WAITING else output


def _numbered_run(events: list[Any], prefix: str, branch: str) -> str:
    """`<name>@<n>` for the run on `branch`: the one its call made before (a resumed call), else the
    next number after the runs at `prefix<n>` so far."""
    runs: dict[str, str] = {}  # path -> its branch
    for event in events:
        path = event.node_info.path or ""
        if path.startswith(prefix) and "/" not in path[len(prefix):]:
            runs.setdefault(path, event.branch or "")
    for path, on in runs.items():
        if on == branch:
            return path.rsplit("/", 1)[-1]
    numbers = [int(p[len(prefix):]) for p in runs if p[len(prefix):].isdigit()]
    return f"{prefix.rsplit('/', 1)[-1]}{max(numbers, default=0) + 1}"


def is_node(value: Any) -> bool:
    """Whether an agent's `tools` entry is a node it wraps in a NodeTool (a workflow, a function
    node; not an agent)."""
    from runtime.agents.base_agent import BaseAgent
    from runtime.workflow.workflow import Workflow

    return isinstance(value, BaseNode) and (isinstance(value, Workflow) or not isinstance(value, BaseAgent))


def input_schema_of(node: BaseNode) -> tuple[bool, Any]:
    """(resolved, schema): the node's input as a tool's parameters; resolved with None for a node
    that takes no input; unresolved when it needs an explicit input_schema (as ADK)."""
    from runtime.workflow.function_node import FunctionNode
    from runtime.workflow.parallel_worker import ParallelWorker
    from runtime.workflow.tool_node import ToolNode
    from runtime.workflow.workflow import Workflow

    if node.input_schema is not None:
        return True, node.input_schema
    if isinstance(node, FunctionNode):
        if node.parameter_binding == "node_input":
            ignored = {n for n, p in inspect.signature(node.func).parameters.items() if _is_context(n, p)}
            return True, build_function_declaration(node.func, ignore=ignored).parameters_json_schema
        if "node_input" not in inspect.signature(node.func).parameters:
            return True, None
        hint = _hints(node.func).get("node_input")
        if hint in (None, Any, object):
            return False, None
        try:
            TypeAdapter(hint).json_schema()
        except Exception:  # noqa: BLE001 - a type with no JSON schema
            return False, None
        return True, hint
    if isinstance(node, ToolNode):
        declaration = node.tool._get_declaration()
        if declaration is None:
            return False, None
        schema = declaration.parameters_json_schema
        if schema is None and declaration.parameters is not None:
            schema = _to_json_schema(declaration.parameters)
        return True, schema
    if isinstance(node, ParallelWorker):
        resolved, inner = input_schema_of(node.node)
        if not resolved or inner is None:
            return False, None
        return True, {"type": "array", "items": _to_json_schema(inner)}
    if isinstance(node, Workflow) and node.graph is not None:
        entries = [
            node.graph.nodes[n] for n in node.graph.next_nodes(START.name, None)
            if not node.graph.nodes[n].requires_all_predecessors
        ]
        schemas = []
        for entry in entries:
            resolved, schema = input_schema_of(entry)
            if not resolved:
                return False, None
            if schema is not None:
                schemas.append(schema)
        if not entries:
            return False, None
        if not schemas:
            return True, None
        return (True, schemas[0]) if all(s == schemas[0] for s in schemas[1:]) else (False, None)
    return False, None


def _to_json_schema(schema: Any) -> dict[str, Any]:
    if isinstance(schema, dict):
        return schema
    if isinstance(schema, types.Schema):
        dumped = schema.model_dump(by_alias=True, exclude_none=True, mode="json")
        return _lowercase_types(dumped)
    return TypeAdapter(schema).json_schema()


def _lowercase_types(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (v.lower() if k == "type" and isinstance(v, str) else _lowercase_types(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_lowercase_types(v) for v in value]
    return value


def _argument_error(name: str, detail: Any) -> dict[str, str]:
    return {
        "error": (
            f"Invoking `{name}()` failed due to argument validation errors:\n{detail}\nYou could retry calling "
            "this tool with corrected argument types."
        )
    }


def _is_context(name: str, parameter: inspect.Parameter) -> bool:
    from runtime.workflow.context import Context

    return name in ("ctx", "context") or parameter.annotation is Context


def _hints(func: Any) -> dict[str, Any]:
    import typing

    try:
        return typing.get_type_hints(func)
    except Exception:  # noqa: BLE001
        return {}


def _doc(node: BaseNode) -> str:
    func = getattr(node, "func", None)
    return inspect.getdoc(func) or "" if func is not None else ""
