"""ADK's Agent Config: an agent described in YAML (`root_agent.yaml`), built into Chronicle agents.

The format is google-adk 2.13's (`google/adk/agents/config_agent_utils.py`):

    agent_class: LlmAgent            # or LoopAgent, ParallelAgent, SequentialAgent, a.dotted.Class
    name: assistant
    model: gemini-2.5-flash          # or model_code: my_pkg.models.my_llm (an object by code reference)
    instruction: You help with ...
    tools:
      - name: google_search          # a tool Chronicle ships (runtime.tools), by its short name
      - name: my_pkg.tools.lookup    # or any object by dotted name (a function, a tool, a toolset)
    sub_agents:
      - config_path: helper.yaml     # another config, relative to this file
      - code: my_pkg.agents.other    # or an agent object by dotted name
    before_model_callbacks:
      - name: my_pkg.callbacks.log   # callbacks by code reference (`_callbacks` lists the `_callback` field)
    generate_content_config: {temperature: 0.1}
    output_key: answer

A workflow (`agent_class: Workflow`) declares its graph in `edges`, as ADK 2.13 reads it:

    agent_class: Workflow
    name: triage
    edges:
      - [START, .steps.classify, helper.yaml]     # a chain; a list inside it fans out: [a, [b, c], d]
      - [classify, {big: .steps.shout, small: [.steps.whisper, .steps.log]}]   # a route map
      - {from_node: classify, to_node: .steps.other, route: other}             # one explicit edge

A node is `START`; the name of a node an earlier edge defined; a dotted name of a function (a
FunctionNode named after it) or of a node or agent object; another config file (`x.yaml`); or a
mapping: `{config_path: x.yaml}`, `{code: a.b.agent}`, or a node written inline
(`{agent_class: FunctionNode, name: n, func_code: .steps.f}`, or an LlmAgent's fields with its
`name`). A mapping that is none of those is a route map. A node named twice is the same node.

A dotted name that starts with "." is relative to the config's folder, taken as a package
(".tools.lookup" in `agents/shop/root_agent.yaml` is `shop.tools.lookup`). As in ADK, names in
the Python standard library are refused: a config file must not be a way to run `os.system`.
Every other key is handed to the agent class, whose own validation says what is wrong.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from typing import Any

from domain.errors import InvalidArgumentError

_BUILT_IN_PACKAGES = ("runtime.agents", "runtime.workflow")  # where a bare agent_class is looked up
_NODE_KEYS = ("agent_class", "config_path", "func_code")  # keys that only a node written inline has
_STDLIB = frozenset(sys.stdlib_module_names) | frozenset(sys.builtin_module_names)


def agent_from_config(config_path: str) -> Any:
    """Builds the agent a YAML Agent Config file describes."""
    import yaml

    path = os.path.abspath(config_path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"Config file not found: {path}")
    with open(path, encoding="utf-8") as f:
        try:
            data = yaml.safe_load(f)
        except yaml.YAMLError as e:
            raise InvalidArgumentError(f"{path} is not valid YAML: {e}") from None
    if not isinstance(data, dict):
        raise InvalidArgumentError(f"Invalid agent config in {path!r}: expected a mapping of fields, got {type(data).__name__}.")
    return _build(data, path, {})


def _build(data: dict[str, Any], path: str, nodes: dict[Any, Any]) -> Any:
    """The agent or node `data` describes; `nodes` are the workflow nodes built so far for this
    file, by name (and by the reference that named them), so a node named again is the same."""
    cls = _agent_class(data.get("agent_class") or "LlmAgent", path)
    fields = getattr(cls, "model_fields", {})
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key == "agent_class":
            continue
        if key.endswith("_code") and key[: -len("_code")] in fields:
            kwargs[key[: -len("_code")]] = _code(value, path)
        elif key.endswith("_callbacks") and key[:-1] in fields:
            kwargs[key[:-1]] = [_code(item, path) for item in _as_list(value)]
        elif key == "tools":
            kwargs["tools"] = [_tool(item, path) for item in _as_list(value)]
        elif key == "sub_agents":
            kwargs["sub_agents"] = [_sub_agent(item, path) for item in _as_list(value)]
        elif key == "edges" and key in fields:
            kwargs["edges"] = _Edges(path, nodes).resolve(value)
        elif key.endswith("_callback") and key in fields:
            kwargs[key] = [_code(item, path) for item in value] if isinstance(value, list) else _code(value, path)
        else:
            kwargs[key] = value
    return cls(**kwargs)


def _agent_class(name: Any, path: str) -> type:
    from runtime.agents.base_agent import BaseAgent
    from runtime.workflow import BaseNode

    if not isinstance(name, str):
        raise InvalidArgumentError(f"agent_class in {path} must be a class name, got {name!r}.")
    if "." in name:
        cls = _code(name, path)
    else:
        found = (getattr(importlib.import_module(p), name, None) for p in _BUILT_IN_PACKAGES)
        cls = next((c for c in found if inspect.isclass(c) and issubclass(c, (BaseAgent, BaseNode))), None)
        if cls is None:
            raise InvalidArgumentError(
                f"Unknown agent_class {name!r} in {path}: a class of runtime.agents or runtime.workflow "
                "(LlmAgent, SequentialAgent, Workflow, FunctionNode, ...), or a dotted name."
            )
    if not (inspect.isclass(cls) and issubclass(cls, (BaseAgent, BaseNode))):
        raise InvalidArgumentError(f"agent_class {name!r} in {path} is not an agent or node class.")
    return cls


def _tool(item: Any, path: str) -> Any:
    """A tool as google-adk 2.13 resolves `tools:` (config_agent_utils._resolve_tools): a built-in
    by its short name, or an object by dotted name; a tool class is built from `args` the way that
    class's `from_config` reads them; a function given `args` is called with them."""
    from runtime import tools
    from runtime.tools.base_tool import BaseTool, BaseToolset

    spec = item if isinstance(item, dict) else {"name": item}
    name, args = spec.get("name"), spec.get("args")
    if not isinstance(name, str) or not name:
        raise InvalidArgumentError(f"A tool in {path} has no name: {item!r}; write `- name: my_pkg.tools.my_tool`.")
    if args is not None and not isinstance(args, dict):
        raise InvalidArgumentError(f"The args of tool {name!r} in {path} must be a mapping, got {args!r}.")
    if "." not in name:
        if name in _CLOUD_ONLY_TOOLS:
            raise InvalidArgumentError(
                f"Tool {name!r} in {path} is one of google-adk's Google Cloud tools ({_CLOUD_ONLY_TOOLS[name]}), "
                "which Chronicle does not ship; wrap the service in a function tool of your own."
            )
        if not hasattr(tools, name):
            raise InvalidArgumentError(f"Unknown built-in tool {name!r} in {path}; name your own tool by its dotted path.")
        found = getattr(tools, name)
    else:
        found = _code(name, path)
    if isinstance(found, (BaseTool, BaseToolset)):
        return found
    if inspect.isclass(found) and issubclass(found, (BaseTool, BaseToolset)):
        builder = next((b for cls, b in _tool_builders().items() if issubclass(found, cls)), None)
        try:
            return builder(found, dict(args or {}), path) if builder else found(**(args or {}))
        except InvalidArgumentError:
            raise
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError(f"Tool {name!r} in {path} cannot be built from args {args!r}: {e}") from None
    if args:
        if not callable(found):
            raise InvalidArgumentError(f"Tool {name!r} in {path} takes no args: it is not callable.")
        return found(args)
    if not callable(found):
        raise InvalidArgumentError(f"Tool {name!r} in {path} is a {type(found).__name__}, not a tool or a function.")
    return found


# google-adk 2.13's built-in tool names that need Google Cloud services Chronicle has no client for.
_CLOUD_ONLY_TOOLS = {
    "APIHubToolset": "API Hub",
    "ApiRegistry": "Cloud API Registry",
    "DiscoveryEngineSearchTool": "Discovery Engine",
    "VertexAiSearchTool": "Vertex AI Search",
    "VertexAiLoadProfilesTool": "Vertex AI",
    "ModelConsultTool": "Vertex AI model consultation",
    "RemoteMcpServer": "Cloud API Registry MCP servers",
}

# google-adk's switch for MCP servers a config starts as local processes (off by default there too).
ALLOW_CONFIG_STDIO_MCP = "ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS"


def _tool_builders() -> dict[type, Any]:
    from runtime.tools import AgentTool, FunctionTool, McpToolset

    return {AgentTool: _agent_tool, FunctionTool: _function_tool, McpToolset: _mcp_toolset}


def _agent_tool(cls: type, args: dict[str, Any], path: str) -> Any:
    """`args: {agent: {config_path: x.yaml} | {code: a.b.agent}, skip_summarization, include_plugins}`."""
    if "agent" not in args:
        raise InvalidArgumentError(f"An AgentTool in {path} needs args.agent: {{config_path: other.yaml}} or {{code: a.b.agent}}.")
    agent = _sub_agent(args.pop("agent"), path)
    return cls(agent=agent, **args)


def _function_tool(cls: type, args: dict[str, Any], path: str) -> Any:
    """`args: {func: a.b.function}` (FunctionTool, LongRunningFunctionTool)."""
    func = args.pop("func", None)
    if isinstance(func, (str, dict)):
        func = _code(func, path)
    if not callable(func):
        raise InvalidArgumentError(f"A {cls.__name__} in {path} needs args.func, a dotted name of a function.")
    return cls(func, **args)


def _mcp_toolset(cls: type, args: dict[str, Any], path: str) -> Any:
    """ADK's McpToolsetConfig: one of stdio_server_params, stdio_connection_params,
    sse_connection_params or streamable_http_connection_params, plus tool_filter and tool_name_prefix."""
    from mcp import StdioServerParameters

    from runtime.tools.mcp_tool import SseConnectionParams, StdioConnectionParams, StreamableHTTPConnectionParams

    kinds = [k for k in ("stdio_server_params", "stdio_connection_params", "sse_connection_params",
                         "streamable_http_connection_params") if args.get(k) is not None]
    if len(kinds) != 1:
        raise InvalidArgumentError(
            f"An McpToolset in {path} needs exactly one of stdio_connection_params, stdio_server_params, "
            f"sse_connection_params or streamable_http_connection_params; got {kinds or 'none'}."
        )
    kind = kinds[0]
    params = args.pop(kind)
    if kind.startswith("stdio") and os.environ.get(ALLOW_CONFIG_STDIO_MCP, "").lower() not in ("1", "true", "yes"):
        raise InvalidArgumentError(
            f"The McpToolset in {path} would start a local process from the config ({kind}); as in google-adk, "
            f"that needs {ALLOW_CONFIG_STDIO_MCP}=1 (set it only for configs you trust), or build the toolset "
            "in Python, or use streamable_http_connection_params."
        )
    if kind == "stdio_server_params":
        connection = StdioConnectionParams(server_params=StdioServerParameters(**params))
    elif kind == "stdio_connection_params":
        params = dict(params)
        connection = StdioConnectionParams(server_params=StdioServerParameters(**params.pop("server_params")), **params)
    elif kind == "streamable_http_connection_params":
        connection = StreamableHTTPConnectionParams(**params)
    else:
        connection = SseConnectionParams(**params)
    return cls(connection_params=connection, **args)


def _sub_agent(item: Any, path: str) -> Any:
    spec = item if isinstance(item, dict) else {"config_path": item}
    if set(spec) - {"config_path", "code"} or ("config_path" in spec) == ("code" in spec):
        raise InvalidArgumentError(f"A sub-agent in {path} needs exactly one of config_path or code, got {item!r}.")
    if "code" in spec:
        return _code(spec["code"], path)
    return agent_from_config(os.path.join(os.path.dirname(path), spec["config_path"]))


class _Edges:
    """A workflow's `edges` from YAML into what runtime.workflow.Graph takes: chains as tuples,
    route maps as dicts, `{from_node, to_node, route}` as Edge, and every node named resolved."""

    def __init__(self, path: str, nodes: dict[Any, Any]):
        self.path, self.nodes = path, nodes

    def resolve(self, items: Any) -> list[Any]:
        from runtime.workflow import Edge

        if not isinstance(items, list):
            raise InvalidArgumentError(f"edges in {self.path} must be a list of chains or edges, got {items!r}.")
        edges: list[Any] = []
        for item in items:
            if isinstance(item, list):
                edges.append(tuple(self._element(e) for e in item))
            elif isinstance(item, dict) and {"from_node", "to_node"} <= set(item) <= set(Edge.model_fields):
                edges.append(Edge(from_node=self._node(item["from_node"]), to_node=self._node(item["to_node"]),
                                  route=item.get("route")))
            else:
                edges.append(self._element(item))  # the graph says what is wrong with it
        return edges

    def _element(self, element: Any) -> Any:
        """A chain's element: a node, a list of nodes (fan-out), or a route map."""
        if isinstance(element, list):
            return tuple(self._node(e) for e in element)
        if isinstance(element, dict) and not _names_a_node(element):
            return {route: tuple(self._node(e) for e in to) if isinstance(to, list) else self._node(to)
                    for route, to in element.items()}
        return self._node(element)

    def _node(self, spec: Any) -> Any:
        from runtime.workflow import START, FunctionNode

        if spec == "START":
            return START
        key = spec if isinstance(spec, str) else id(spec)
        if key in self.nodes:
            return self.nodes[key]
        if isinstance(spec, dict) and spec.get("name") in self.nodes:
            return self.nodes[spec["name"]]
        if isinstance(spec, str) and spec.endswith((".yaml", ".yml")):
            found = _sub_agent({"config_path": spec}, self.path)
        elif isinstance(spec, str) and "." not in spec.strip("."):
            raise InvalidArgumentError(
                f"Unknown node {spec!r} in the edges of {self.path}: a node is named by a word only after "
                "an earlier edge defined it."
            )
        elif isinstance(spec, str):
            found = _code(spec, self.path)
            if not _is_node(found) and callable(found) and not inspect.isclass(found):
                found = FunctionNode(found, name=spec.rsplit(".", 1)[-1])
            elif not _is_node(found):
                raise InvalidArgumentError(
                    f"Node {spec!r} in {self.path} is a {type(found).__name__}, not a function, a node or an agent."
                )
        elif isinstance(spec, dict) and ("config_path" in spec or ("code" in spec and not set(_NODE_KEYS) & set(spec))):
            found = _sub_agent(spec, self.path)
        elif isinstance(spec, dict):
            found = _build(spec, self.path, self.nodes)
        else:
            raise InvalidArgumentError(f"Node {spec!r} in the edges of {self.path} is not a node reference.")
        self.nodes[key] = found
        name = getattr(found, "name", None)
        if name:
            self.nodes.setdefault(name, found)
        return found


def _names_a_node(mapping: dict[str, Any]) -> bool:
    """Whether a mapping in a chain is a node (else it is a route map), decided as ADK decides:
    a key only nodes have, a `{code: "a.b.c"}` reference, or `name` with only LlmAgent fields."""
    from runtime.agents import LlmAgent

    if any(k in mapping for k in _NODE_KEYS):
        return True
    if len(mapping) == 1 and isinstance(mapping.get("code"), str):
        return True
    fields = LlmAgent.model_fields
    return "name" in mapping and all(
        k in fields or (k.endswith("_code") and k[: -len("_code")] in fields) or (k.endswith("_callbacks") and k[:-1] in fields)
        for k in mapping
    )


def _is_node(value: Any) -> bool:
    from runtime.agents.base_agent import BaseAgent
    from runtime.workflow import BaseNode

    return isinstance(value, (BaseAgent, BaseNode))


def _code(reference: Any, path: str) -> Any:
    """The object a code reference names (`name: a.b.c`, or the bare string)."""
    name = reference.get("name") if isinstance(reference, dict) else reference
    if not isinstance(name, str) or "." not in name.strip("."):
        raise InvalidArgumentError(f"Code reference {reference!r} in {path} must be a dotted name such as my_pkg.module.thing.")
    if name.startswith("."):
        name = os.path.basename(os.path.dirname(path)) + name
    if name.split(".")[0] in _STDLIB:
        raise InvalidArgumentError(
            f"Code reference {name!r} in {path} is refused: agent configs cannot import from the Python "
            "standard library. Reference your own package, runtime, or a third-party package."
        )
    module_name, attribute = name.rsplit(".", 1)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        raise InvalidArgumentError(f"Code reference {name!r} in {path}: module {e.name!r} not found.") from None
    if not hasattr(module, attribute):
        raise InvalidArgumentError(f"Code reference {name!r} in {path}: {module_name} has no {attribute!r}.")
    return getattr(module, attribute)


def resolve_agent_reference(reference: dict[str, Any], referencing_path: str) -> Any:
    """The agent `{config_path: ...}` or `{code: ...}` names, seen from the config at `referencing_path`."""
    return _sub_agent(reference, referencing_path)


def resolve_code(name: str) -> Any:
    """The object a dotted name names, by the rules of a config's code references (no standard library)."""
    return _code(name, "<code reference>")


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]
