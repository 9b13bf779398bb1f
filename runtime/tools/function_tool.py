"""FunctionTool: a Python function as a tool; LongRunningFunctionTool: one that answers later."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, Callable, Optional

from google.genai import types

from runtime.tools.base_tool import BaseTool
from runtime.tools.declarations import build_function_declaration, convert_argument, function_name
from runtime.tools.tool_context import ToolContext


class FunctionTool(BaseTool):
    """Wraps a function. The model sees a declaration inferred from its signature, type hints and
    docstring. Async functions are awaited; sync ones run in a worker thread. A `tool_context`
    parameter receives the ToolContext. A result that is not a dict is sent as {"result": value}."""

    def __init__(self, func: Callable[..., Any], *, name: Optional[str] = None, require_confirmation: bool = False):
        if not callable(func):
            raise TypeError(f"FunctionTool needs a callable, got {type(func).__name__}")
        doc = inspect.cleandoc(inspect.getdoc(func) or "")
        super().__init__(name=name or function_name(func), description=doc)
        self.func = func
        self.require_confirmation = require_confirmation
        self._signature = inspect.signature(func)
        params = self._signature.parameters
        self._takes_context = "tool_context" in params
        self._takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in params.values())
        self._params = {
            n: p
            for n, p in params.items()
            if n not in ("tool_context", "input_stream") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        }
        self._mandatory = [n for n, p in self._params.items() if p.default is inspect.Parameter.empty]
        call = getattr(func, "__call__", None)
        self._is_async = inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(call)
        self._declaration: Optional[types.FunctionDeclaration] = None
        self._annotations: Optional[dict[str, Any]] = None

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        if self._declaration is None:
            self._declaration = build_function_declaration(self.func, name=self.name)
        return self._declaration

    def _hints(self) -> dict[str, Any]:
        if self._annotations is None:
            from runtime.tools.declarations import _type_hints

            hints = _type_hints(self.func)
            self._annotations = {n: hints.get(n, p.annotation) for n, p in self._params.items()}
        return self._annotations

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        args = args or {}
        if self._takes_kwargs:
            call_args = {k: v for k, v in args.items() if k not in ("tool_context", "input_stream")}
        else:
            call_args = {k: v for k, v in args.items() if k in self._params}
        missing = [n for n in self._mandatory if n not in call_args]
        if missing:
            return {
                "error": f"Invoking `{self.name}()` failed as the following mandatory input parameters "
                f"are not present: {', '.join(missing)}. You could retry calling this tool, but it is "
                "IMPORTANT for you to provide all the mandatory parameters."
            }
        hints = self._hints()
        for key, value in call_args.items():
            if key in hints:
                call_args[key] = convert_argument(hints[key], value)
        if self._takes_context:
            call_args["tool_context"] = tool_context
        if self._is_async:
            return await self.func(**call_args)
        result = await asyncio.to_thread(self.func, **call_args)
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
            declaration = build_function_declaration(self.func, name=self.name)
            description = f"{declaration.description}\n\n{LONG_RUNNING_NOTE}" if declaration.description else LONG_RUNNING_NOTE
            self._declaration = declaration.model_copy(update={"description": description})
        return self._declaration
