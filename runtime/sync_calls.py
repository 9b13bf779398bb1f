"""Where a plain (sync) function a user wrote as a tool or a workflow node runs.

As google-adk 2.13: on the event loop, unless the invocation's `RunConfig.tool_thread_pool_config`
is set; then on a pool of that many threads, shared by every invocation that asks for that size
(so a slow tool cannot hold up the loop, in a server for instance)."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def _pool(max_workers: int) -> ThreadPoolExecutor:
    with _pools_lock:
        pool = _pools.get(max_workers)
        if pool is None:
            pool = _pools[max_workers] = ThreadPoolExecutor(max_workers, thread_name_prefix="chronicle-tool")
        return pool


def pool_size(run_config: Any) -> int | None:
    """The tool thread pool's size the run asks for, or None: run on the loop."""
    size = getattr(getattr(run_config, "tool_thread_pool_config", None), "max_workers", None)
    # a tool called directly (no context) or with a stand-in context runs on the loop
    return size if isinstance(size, int) and not isinstance(size, bool) else None


async def call_sync(run_config: Any, func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """`func(*args, **kwargs)` on the loop, or on the run's tool thread pool (with the caller's
    context variables) when its RunConfig sets one."""
    size = pool_size(run_config)
    if size is None:
        return func(*args, **kwargs)
    call = functools.partial(contextvars.copy_context().run, func, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_pool(size), call)
