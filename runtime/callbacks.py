"""Calling user callbacks: sync ones run in a thread, async ones are awaited; lists stop at the
first callback that returns something (not None)."""

from __future__ import annotations

import asyncio
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


def _is_async(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


async def call_user(fn: Callable[..., Any], /, **kwargs: Any) -> Any:
    """Calls user code: awaited if async, in a worker thread if sync (so it cannot block the loop)."""
    if _is_async(fn):
        return await fn(**kwargs)
    result = await asyncio.to_thread(fn, **kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


async def first_result(callbacks: Sequence[Callback], /, **kwargs: Any) -> Optional[Any]:
    for callback in callbacks:
        result = await call_user(callback, **kwargs)
        if result is not None:
            return result
    return None
