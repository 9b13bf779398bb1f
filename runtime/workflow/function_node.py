"""FunctionNode and the `@node` decorator: a Python function as a workflow node."""

from __future__ import annotations

import inspect
import typing
from typing import Any, AsyncGenerator, Callable, Literal, Optional

from google.genai import types
from pydantic import ConfigDict, PrivateAttr, TypeAdapter

from domain.events import Event
from runtime.auth.auth_tool import AuthConfig
from runtime.sync_calls import call_sync
from runtime.workflow import confirmation, node_auth
from runtime.workflow.base_node import BaseNode
from runtime.workflow.content_input import unwrapped
from runtime.workflow.context import Context
from runtime.workflow.errors import WorkflowConfigurationError, WorkflowDataError
from runtime.workflow.facts import as_json
from runtime.workflow.retry_config import RetryConfig

_CONTEXT_NAMES = ("ctx", "context")


class FunctionNode(BaseNode):
    """Calls `func`. Its parameters are bound by name: `ctx` gets the node's Context, `node_input`
    the node's input, the others come from session state (`parameter_binding="state"`, the default)
    or from the keys of a dict input (`"node_input"`). What it returns is the node's output; a
    generator function (sync or async) yields Events, input requests and values as it goes.

    `require_confirmation` (True, or a function of the call's arguments that says whether this
    call needs it): a person approves the run before the function is called (see
    runtime.workflow.confirmation); a rejected run outputs {"error": "This tool call is rejected."}."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    func: Callable[..., Any]
    parameter_binding: Literal["state", "node_input"] = "state"
    require_confirmation: confirmation.ConfirmationPolicy = False
    auth_config: Optional[AuthConfig] = None
    """A credential the client must supply before the function runs (runtime.workflow.node_auth)."""
    _signature: inspect.Signature = PrivateAttr()
    _adapters: dict[str, TypeAdapter] = PrivateAttr(default_factory=dict)
    _hints: dict[str, Any] = PrivateAttr(default_factory=dict)

    def __init__(self, func: Optional[Callable[..., Any]] = None, /, **data: Any) -> None:
        if func is not None:
            data["func"] = func
        if "name" not in data and "func" in data:
            data["name"] = getattr(data["func"], "__name__", "")
        if data.get("require_confirmation") and not data.get("rerun_on_resume"):
            raise WorkflowConfigurationError(
                f"FunctionNode {data.get('name')!r} has require_confirmation, which needs rerun_on_resume=True: the "
                "node runs again once the person has answered (@node sets it for you)."
            )
        if data.get("auth_config") is not None and not data.get("rerun_on_resume"):
            raise WorkflowConfigurationError(f"FunctionNode {data.get('name')!r} with auth_config requires rerun_on_resume=True.")
        super().__init__(**data)

    def model_post_init(self, __context: Any) -> None:
        if not callable(self.func):
            raise WorkflowConfigurationError(f"FunctionNode {self.name!r} needs a callable, got {self.func!r}.")
        self._signature = inspect.signature(self.func)
        try:
            hints = typing.get_type_hints(self.func)
        except Exception:  # noqa: BLE001 - unresolvable hints: bind values as they are
            hints = {}
        self._hints = {
            name: hint for name, hint in hints.items()
            if name != "return" and name not in _CONTEXT_NAMES and hint is not Context
        }
        self._adapters = {name: TypeAdapter(hint) for name, hint in self._hints.items()}

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
        """The value as the parameter's type hint wants it (as ADK: "3" for an int becomes 3); one
        that does not fit (None for a `str`) raises pydantic's ValidationError, ADK's error."""
        adapter = self._adapters.get(name)
        if adapter is None:
            return value
        if isinstance(value, types.Content):  # the user's message: its text, or JSON, as the hint wants
            value = unwrapped(value, self._hints[name])
        return adapter.validate_python(value)

    def exempt_from_output_schema(self, value: Any) -> bool:
        return bool(self.require_confirmation) and value == confirmation.REJECTED

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        arguments = self._arguments(ctx, node_input)
        if self.require_confirmation:
            answer = confirmation.answer(ctx)
            if answer is not None and not answer.confirmed:
                yield confirmation.REJECTED
                return
            if answer is None:
                args = {k: v for k, v in arguments.items() if v is not ctx}
                if await confirmation.required(self.require_confirmation, ctx, args, node_input):
                    yield confirmation.request(ctx.node_path, self.name, as_json(args))
                    return
        if self.auth_config is not None:
            request = await node_auth.gate(ctx, self.auth_config)
            if request is not None:
                yield request  # the node waits for the credential
                return
        if inspect.isasyncgenfunction(self.func):
            async for item in self.func(**arguments):
                yield _said(item)
        elif inspect.isgeneratorfunction(self.func):
            # as google-adk 2.13: a sync node runs on the loop (so what it says comes in the order
            # ADK's does), or step by step on the run's tool thread pool (runtime.sync_calls)
            generator, done = self.func(**arguments), object()
            try:
                while (item := await call_sync(ctx.run_config, next, generator, done)) is not done:
                    yield _said(item)
            finally:
                await call_sync(ctx.run_config, generator.close)
        elif inspect.iscoroutinefunction(self.func):
            yield _said(await self.func(**arguments))
        else:
            result = await call_sync(ctx.run_config, self.func, **arguments)
            yield _said(await result if inspect.isawaitable(result) else result)


def _said(item: Any) -> Any:
    """As google-adk 2.13: a Content a function gives is a message it says (not its output)."""
    return Event(content=item) if isinstance(item, types.Content) else item


def node(
    node_like: Any = None,
    *,
    name: Optional[str] = None,
    rerun_on_resume: Optional[bool] = None,
    retry_config: Optional[RetryConfig] = None,
    timeout: Optional[float] = None,
    parallel_worker: bool = False,
    max_parallel_workers: Optional[int] = None,
    require_confirmation: Optional[confirmation.ConfirmationPolicy] = None,
    parameter_binding: Literal["state", "node_input"] = "state",
    auth_config: Optional[AuthConfig] = None,
) -> Any:
    """`@node`, `@node(...)` on a function, or `node(x, name=...)` on a function, node, agent or
    tool: returns the node, with the given settings. `parallel_worker=True` wraps it in a node that
    runs it once per item of a list input (at most `max_parallel_workers` at once);
    `require_confirmation` turns rerun_on_resume on unless it is given."""
    if max_parallel_workers is not None and not parallel_worker:
        raise WorkflowConfigurationError("max_parallel_workers can only be set when parallel_worker is True.")
    if max_parallel_workers is not None and max_parallel_workers < 1:
        raise WorkflowConfigurationError("max_parallel_workers must be greater than or equal to 1.")
    if require_confirmation and rerun_on_resume is None:
        rerun_on_resume = True
    settings = {
        key: value
        for key, value in dict(
            name=name, rerun_on_resume=rerun_on_resume, retry_config=retry_config, timeout=timeout,
            require_confirmation=require_confirmation, auth_config=auth_config,
        ).items()
        if value is not None
    }

    def wrap(target: Any) -> BaseNode:
        from runtime.workflow.graph import as_node
        from runtime.workflow.parallel_worker import ParallelWorker

        if callable(target) and not isinstance(target, BaseNode) and not hasattr(target, "run_async"):
            built: BaseNode = FunctionNode(target, parameter_binding=parameter_binding, **settings)
        else:
            built = as_node(target)
            for setting, applies_to in (("require_confirmation", "function and tool nodes"), ("auth_config", "function nodes")):
                if setting in settings and setting not in type(built).model_fields:
                    raise WorkflowConfigurationError(
                        f"{setting} applies to {applies_to}, not to {type(built).__name__} {built.name!r}."
                    )
            built = built.model_copy(update=settings) if settings else built
        return ParallelWorker(node=built, max_parallel_workers=max_parallel_workers) if parallel_worker else built

    return wrap if node_like is None else wrap(node_like)
