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

_BUILT_IN_CLASSES = ("LlmAgent", "Agent", "LoopAgent", "ParallelAgent", "SequentialAgent")
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
    return _build(data, path)


def _build(data: dict[str, Any], path: str) -> Any:
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
        elif key.endswith("_callback") and key in fields:
            kwargs[key] = [_code(item, path) for item in value] if isinstance(value, list) else _code(value, path)
        else:
            kwargs[key] = value
    return cls(**kwargs)


def _agent_class(name: str, path: str) -> type:
    from runtime import agents
    from runtime.agents.base_agent import BaseAgent

    cls = getattr(agents, name) if name in _BUILT_IN_CLASSES else _code(name, path)
    if not (inspect.isclass(cls) and issubclass(cls, BaseAgent)):
        raise InvalidArgumentError(f"agent_class {name!r} in {path} is not an agent class (a BaseAgent subclass).")
    return cls


def _tool(item: Any, path: str) -> Any:
    from runtime import tools
    from runtime.tools.base_tool import BaseTool, BaseToolset

    spec = item if isinstance(item, dict) else {"name": item}
    name, args = spec.get("name"), spec.get("args")
    if not isinstance(name, str) or not name:
        raise InvalidArgumentError(f"A tool in {path} has no name: {item!r}; write `- name: my_pkg.tools.my_tool`.")
    if "." not in name:
        if not hasattr(tools, name):
            raise InvalidArgumentError(f"Unknown built-in tool {name!r} in {path}; name your own tool by its dotted path.")
        found = getattr(tools, name)
    else:
        found = _code(name, path)
    if inspect.isclass(found) and issubclass(found, (BaseTool, BaseToolset)):
        return found(**(args or {}))
    if args:
        if not callable(found):
            raise InvalidArgumentError(f"Tool {name!r} in {path} takes no args: it is not callable.")
        return found(args)
    return found


def _sub_agent(item: Any, path: str) -> Any:
    spec = item if isinstance(item, dict) else {"config_path": item}
    if set(spec) - {"config_path", "code"} or ("config_path" in spec) == ("code" in spec):
        raise InvalidArgumentError(f"A sub-agent in {path} needs exactly one of config_path or code, got {item!r}.")
    if "code" in spec:
        return _code(spec["code"], path)
    return agent_from_config(os.path.join(os.path.dirname(path), spec["config_path"]))


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


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]
