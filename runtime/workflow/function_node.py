"""FunctionNode and the `@node` decorator: a Python function as a workflow node."""

from __future__ import annotations

import asyncio
import inspect
import typing
from typing import Any, AsyncGenerator, Callable, Literal, Optional

from pydantic import ConfigDict, PrivateAttr, TypeAdapter, ValidationError

from runtime.workflow.base_node import BaseNode
from runtime.workflow.context import Context
from runtime.workflow.errors import WorkflowConfigurationError, WorkflowDataError
from runtime.workflow.retry_config import RetryConfig

_CONTEXT_NAMES = ("ctx", "context")


class FunctionNode(BaseNode):
    """Calls `func`. Its parameters are bound by name: `ctx` gets the node's Context, `node_input`
    the node's input, the others come from session state (`parameter_binding="state"`, the default)
    or from the keys of a dict input (`"node_input"`). What it returns is the node's output; an
    async generator function may yield several Events and values instead."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    func: Callable[..., Any]
    parameter_binding: Literal["state", "node_input"] = "state"
    _signature: inspect.Signature = PrivateAttr()
    _adapters: dict[str, TypeAdapter] = PrivateAttr(default_factory=dict)

    def __init__(self, func: Optional[Callable[..., Any]] = None, /, **data: Any) -> None:
        if func is not None:
            data["func"] = func
        if "name" not in data and "func" in data:
            data["name"] = getattr(data["func"], "__name__", "")
        super().__init__(**data)

    def model_post_init(self, __context: Any) -> None:
        if not callable(self.func):
            raise WorkflowConfigurationError(f"FunctionNode {self.name!r} needs a callable, got {self.func!r}.")
        self._signature = inspect.signature(self.func)
        try:
            hints = typing.get_type_hints(self.func)
        except Exception:  # noqa: BLE001 - unresolvable hints: bind values as they are
            hints = {}
        self._adapters = {
            name: TypeAdapter(hint) for name, hint in hints.items()
            if name != "return" and name not in _CONTEXT_NAMES and hint is not Context
        }

    def _arguments(self, ctx: Context, node_input: Any) -> dict[str, Any]:
        source = ctx.state if self.parameter_binding == "state" else (node_input if isinstance(node_input, dict) else {})
        arguments: dict[str, Any] = {}
        for name, parameter in self._signature.parameters.items():
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            if name in _CONTEXT_NAMES or parameter.annotation is Context:
                arguments[name] = ctx
            elif name == "node_input" and self.parameter_binding == "state":
                arguments[name] = self._coerced(name, node_input)
            elif name in source:
                arguments[name] = self._coerced(name, source[name])
            elif parameter.default is not parameter.empty:
                arguments[name] = parameter.default
            else:
                where = "state" if self.parameter_binding == "state" else "node_input"
                raise WorkflowDataError(
                    f"Missing value for parameter {name!r} of node {self.name!r}: it is not in {where} "
                    "and has no default."
                )
        return arguments

    def _coerced(self, name: str, value: Any) -> Any:
        """The value as the parameter's type hint wants it (as ADK: "3" for an int becomes 3)."""
        adapter = self._adapters.get(name)
        if adapter is None or value is None:
            return value
        try:
            return adapter.validate_python(value)
        except ValidationError as error:
            raise WorkflowDataError(
                f"Parameter {name!r} of node {self.name!r} got {value!r}, which does not fit its type: {error}"
            ) from error

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        arguments = self._arguments(ctx, node_input)
        if inspect.isasyncgenfunction(self.func):
            async for item in self.func(**arguments):
                yield item
        elif inspect.iscoroutinefunction(self.func):
            yield await self.func(**arguments)
        else:
            yield await asyncio.to_thread(self.func, **arguments)  # a sync function must not block the loop


def node(
    node_like: Any = None,
    *,
    name: Optional[str] = None,
    rerun_on_resume: Optional[bool] = None,
    retry_config: Optional[RetryConfig] = None,
    timeout: Optional[float] = None,
    parameter_binding: Literal["state", "node_input"] = "state",
) -> Any:
    """`@node`, `@node(...)` on a function, or `node(x, name=...)` on a function, node or agent:
    returns the node, with the given settings."""
    settings = {
        key: value
        for key, value in dict(
            name=name, rerun_on_resume=rerun_on_resume, retry_config=retry_config, timeout=timeout
        ).items()
        if value is not None
    }

    def wrap(target: Any) -> BaseNode:
        from runtime.workflow.graph import as_node

        if isinstance(target, BaseNode):
            return target.model_copy(update=settings) if settings else target
        if callable(target) and not hasattr(target, "run_async"):
            return FunctionNode(target, parameter_binding=parameter_binding, **settings)
        built = as_node(target)
        return built.model_copy(update=settings) if settings else built

    return wrap if node_like is None else wrap(node_like)
