"""FunctionTool: a Python function as a tool; LongRunningFunctionTool: one that answers later."""

from __future__ import annotations

import inspect
from typing import Any, Awaitable, Callable, Optional, Union

from google.genai import types

from runtime.contexts import Context
from runtime.tools.base_tool import BaseTool
from runtime.tools.declarations import (
    RUNTIME_PARAMS,
    _type_hints,
    build_function_declaration,
    callable_doc,
    convert_argument,
    function_name,
)
from runtime.sync_calls import call_sync
from runtime.tools.tool_context import ToolContext

ConfirmationPolicy = Union[bool, Callable[..., Union[bool, Awaitable[bool]]]]
_CONTEXT_NAMES = frozenset({"Context", "ToolContext", "CallbackContext"})


def context_parameter(func: Callable[..., Any]) -> Optional[str]:
    """The parameter of `func` that receives the tool's Context: one annotated with Context
    (ToolContext, CallbackContext: the same class), whatever its name, else one named
    `tool_context`."""
    params = inspect.signature(func).parameters
    hints = _type_hints(func)
    for name, param in params.items():
        annotation = hints.get(name, param.annotation)
        if annotation is Context or (isinstance(annotation, str) and annotation.split(".")[-1] in _CONTEXT_NAMES):
            return name
    return "tool_context" if "tool_context" in params else None


async def confirmation_required(policy: ConfirmationPolicy, args: dict[str, Any], tool_context: ToolContext) -> bool:
    """Whether a call needs a person's approval: the policy itself, or what it answers when it is a
    function of the call's arguments (and, if it takes one, the tool context; it may be async)."""
    if not callable(policy):
        return bool(policy)
    params = inspect.signature(policy).parameters
    takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in params.values())
    call_args = {k: v for k, v in (args or {}).items() if takes_kwargs or k in params}
    context_param = context_parameter(policy)
    if context_param:
        call_args[context_param] = tool_context
    decided = policy(**call_args)
    if inspect.isawaitable(decided):
        decided = await decided
    return bool(decided)  # stricter than ADK, which lets anything but True through


class FunctionTool(BaseTool):
    """Wraps a function. The model sees a declaration inferred from its signature, type hints and
    docstring. Async functions are awaited; sync ones run on the loop, or on the run's tool thread pool (runtime.sync_calls). A parameter annotated
    `ToolContext` (or `Context`), or named `tool_context`, receives the context. A result that is not
    a dict is sent as {"result": value}.

    `require_confirmation`: True, or a function of the call's arguments (and, if it takes one, the
    tool context) that returns whether this call needs a person's approval before it runs."""

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: Optional[str] = None,
        require_confirmation: ConfirmationPolicy = False,
    ):
        if not callable(func):
            raise TypeError(f"FunctionTool needs a callable, got {type(func).__name__}")
        super().__init__(name=name or function_name(func), description=callable_doc(func))
        self.func = func
        self.require_confirmation = require_confirmation
        self._signature = inspect.signature(func)
        params = self._signature.parameters
        self._context_param = context_parameter(func)
        self._runtime_params = RUNTIME_PARAMS | {self._context_param} if self._context_param else RUNTIME_PARAMS
        self._takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in params.values())
        self._params = {
            n: p
            for n, p in params.items()
            if n not in self._runtime_params and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        }
        self._mandatory = [n for n, p in self._params.items() if p.default is inspect.Parameter.empty]
        call = getattr(func, "__call__", None)
        self._is_async = inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(call)
        self._declaration: Optional[types.FunctionDeclaration] = None
        self._annotations: Optional[dict[str, Any]] = None

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        if self._declaration is None:
            self._declaration = build_function_declaration(self.func, name=self.name, ignore=self._runtime_params)
        return self._declaration

    async def check_require_confirmation(self, args: dict[str, Any], tool_context: ToolContext) -> bool:
        return await confirmation_required(self.require_confirmation, args, tool_context)

    def _hints(self) -> dict[str, Any]:
        if self._annotations is None:
            hints = _type_hints(self.func)
            self._annotations = {n: hints.get(n, p.annotation) for n, p in self._params.items()}
        return self._annotations

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        args = args or {}
        if self._takes_kwargs:
            call_args = {k: v for k, v in args.items() if k not in self._runtime_params}
        else:
            call_args = {k: v for k, v in args.items() if k in self._params}
        missing = [n for n in self._mandatory if n not in call_args]
        if missing:
            # google-adk 2.13's words, byte for byte: the model sees them.
            return {
                "error": f"Invoking `{self.name}()` failed as the following mandatory input parameters "
                "are not present:\n" + "\n".join(missing) + "\nYou could retry calling this tool, but it "
                "is IMPORTANT for you to provide all the mandatory parameters."
            }
        hints = self._hints()
        for key, value in call_args.items():
            if key in hints:
                call_args[key] = convert_argument(hints[key], value)
        if self._context_param:
            call_args[self._context_param] = tool_context
        if self._is_async:
            return await self.func(**call_args)
        result = await call_sync(getattr(tool_context, "run_config", None), self.func, **call_args)
        if inspect.isawaitable(result):
            result = await result
        return result


LONG_RUNNING_NOTE = (
    "NOTE: This is a long-running operation. Do not call this tool again if it has already "
    "returned some intermediate or pending status."
)


class LongRunningFunctionTool(FunctionTool):
    """A tool whose result may come later. Returning None sends no result now: the invocation ends
    with the call pending (its id is in the event's long_running_tool_ids), and the client later
    sends the result as a user message holding a FunctionResponse with the same id."""

    def __init__(self, func: Callable[..., Any], **kwargs: Any):
        super().__init__(func, **kwargs)
        self.is_long_running = True

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        if self._declaration is None:
            declaration = build_function_declaration(self.func, name=self.name, ignore=self._runtime_params)
            description = f"{declaration.description}\n\n{LONG_RUNNING_NOTE}" if declaration.description else LONG_RUNNING_NOTE
            self._declaration = declaration.model_copy(update={"description": description})
        return self._declaration
