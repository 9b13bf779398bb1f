"""SequentialAgent: runs its sub-agents one after another."""

from __future__ import annotations

from typing import AsyncGenerator

from domain.events import Event
from runtime.agents.base_agent import BaseAgent
from runtime.invocation_context import InvocationContext


class SequentialAgent(BaseAgent):
    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        for sub_agent in self.sub_agents:
            agen = sub_agent.run_async(ctx)
            try:
                async for event in agen:
                    yield event
            finally:
                await agen.aclose()
            if ctx.end_invocation:
                return
