"""Events a tool makes while it runs (a node run as a tool: its messages, its input requests),
committed before the tool's result, in order, as google-adk 2.13 publishes them.

The agent's call runner (runtime.agents.tool_calls) opens a channel around the calls it runs; a
tool hands each event to `emit`, which returns once the Runner has committed it (so what the tool
does next sees the stored state). A tool that waits for a person returns `WAITING`: the call gets
no result yet, and the agent stops until the answer comes back.
"""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any, AsyncGenerator, Optional

from domain.events import Event

WAITING = object()
"""What a tool returns instead of a result while it waits for a person's answer."""

_channel: contextvars.ContextVar[Optional[asyncio.Queue]] = contextvars.ContextVar("tool_events", default=None)


async def emit(event: Event) -> None:
    """Hands `event` to the agent running the tool and waits until it is committed."""
    queue = _channel.get()
    if queue is None:
        raise RuntimeError("This tool makes events of its own: run it as an agent's tool.")
    committed = asyncio.get_running_loop().create_future()
    queue.put_nowait((event, committed))
    await committed


def start(coroutines: list[Any]) -> tuple[list[asyncio.Future], asyncio.Queue]:
    """Starts the calls as tasks that can emit events; returns them and the queue their events
    arrive on."""
    queue: asyncio.Queue = asyncio.Queue()
    token = _channel.set(queue)
    try:
        tasks = [asyncio.ensure_future(c) for c in coroutines]  # each task copies the channel
    finally:
        _channel.reset(token)
    return tasks, queue


async def relay(queue: asyncio.Queue, until: asyncio.Future) -> AsyncGenerator[Event, None]:
    """Yields the events the tools emit until `until` is done; each is committed by the time the
    caller asks for the next (that is when its tool goes on)."""
    while not until.done():
        getter = asyncio.ensure_future(queue.get())
        try:
            await asyncio.wait({getter, until}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not getter.done():
                getter.cancel()
        if getter.cancelled() or not getter.done():
            continue
        event, committed = getter.result()
        yield event
        if not committed.done():
            committed.set_result(None)
