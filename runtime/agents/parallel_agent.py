"""ParallelAgent: runs its sub-agents at the same time, each on its own branch."""

from __future__ import annotations

import asyncio
from typing import AsyncGenerator, Optional

from domain.events import Event
from runtime.agents.base_agent import BaseAgent, BaseAgentState
from runtime.invocation_context import InvocationContext

_DONE = object()


class ParallelAgent(BaseAgent):
    """Each sub-agent runs on branch ``<this agent's branch or name>.<sub-agent>``, so it does not
    see its siblings' events in its model context. Their events are yielded as they come; each
    sub-agent waits until its event has been committed by the Runner before it resumes.

    In a resumable app it records an (empty) BaseAgentState when it starts, as google-adk does;
    a resumed invocation runs only the sub-agents that had not finished."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        if not self.sub_agents:
            return
        if ctx.is_resumable and self._load_agent_state(ctx, BaseAgentState) is None:
            ctx.set_agent_state(self.name, agent_state=BaseAgentState())
            yield self._create_agent_state_event(ctx)
        queue: asyncio.Queue[tuple[object, Optional[asyncio.Event], Optional[BaseException]]] = asyncio.Queue()

        async def drive(sub_agent: BaseAgent) -> None:
            prefix = ctx.branch or self.name
            branch_ctx = ctx.model_copy(update={"branch": f"{prefix}.{sub_agent.name}"})
            agen = sub_agent.run_async(branch_ctx)
            try:
                async for event in agen:
                    committed = asyncio.Event()
                    await queue.put((event, committed, None))
                    await committed.wait()
            except asyncio.CancelledError:
                raise
            except BaseException as error:  # noqa: BLE001 - handed to the consumer to raise
                await queue.put((_DONE, None, error))
                return
            finally:
                await agen.aclose()
            await queue.put((_DONE, None, None))

        tasks = [asyncio.create_task(drive(sub_agent)) for sub_agent in self.sub_agents]
        try:
            running = len(tasks)
            while running:
                item, committed, error = await queue.get()
                if item is _DONE:
                    if error is not None:
                        raise error
                    running -= 1
                    continue
                yield item  # type: ignore[misc]
                committed.set()  # type: ignore[union-attr]
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
