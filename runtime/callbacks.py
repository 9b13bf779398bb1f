"""Calling user callbacks as google-adk 2.13 calls them: sync ones on the loop, async ones awaited;
lists stop at the first callback that returns something (not None)."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Sequence, Union

from runtime.contexts import CallbackContext, ReadonlyContext  # re-exported for convenience

Callback = Callable[..., Any]
CallbackOrList = Union[Callback, Sequence[Callback], None]

__all__ = ["CallbackContext", "ReadonlyContext", "as_list", "call_user", "first_result"]


def as_list(callbacks: CallbackOrList) -> list[Callback]:
    if callbacks is None:
        return []
    if isinstance(callbacks, (list, tuple)):
        return list(callbacks)
    return [callbacks]


# google-adk 2.13's order of a callback's arguments, used when a callback does not take them by
# name (`def before(ctx: Context)`, `def after(tool, args, context, result)`): they are passed by
# position in this order instead, as google-adk passes them.
CANONICAL_ORDER = (
    "tool", "args", "tool_context", "response", "tool_response", "callback_context", "llm_request",
    "llm_response", "error",
)


def _arguments(fn: Callable[..., Any], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments to call `fn` with: by name when its signature takes them so, else by position."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: call it by name
        return (), kwargs
    try:
        signature.bind(**kwargs)
        return (), kwargs
    except TypeError:
        pass
    rank = lambda name: CANONICAL_ORDER.index(name) if name in CANONICAL_ORDER else len(CANONICAL_ORDER)  # noqa: E731
    positional = tuple(kwargs[name] for name in sorted(kwargs, key=rank))
    try:
        signature.bind(*positional)
    except TypeError:
        return (), kwargs  # neither fits: calling by name raises the clearer TypeError
    return positional, {}


async def call_user(fn: Callable[..., Any], /, **kwargs: Any) -> Any:
    """Calls a callback: awaited if async, called on the loop if sync (as google-adk 2.13 does)."""
    args, kwargs = _arguments(fn, kwargs)
    result = fn(*args, **kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


async def first_result(callbacks: Sequence[Callback], /, **kwargs: Any) -> Optional[Any]:
    for callback in callbacks:
        result = await call_user(callback, **kwargs)
        if result is not None:
            return result
    return None
