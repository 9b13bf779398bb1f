"""SequentialAgent: runs its sub-agents one after another."""

from __future__ import annotations

from typing import AsyncGenerator

from domain.events import Event
from runtime.agents.base_agent import BaseAgent
from runtime.invocation_context import InvocationContext


class SequentialAgent(BaseAgent):
    """Runs its sub-agents in order. In a resumable app a sub-agent that pauses stops the sequence;
    a resumed invocation skips the sub-agents that finished and goes on from the paused one."""

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
            if ctx.is_resumable and sub_agent.name in ctx.paused_agents:
                return  # paused on a long-running call: the rest runs when the invocation resumes
