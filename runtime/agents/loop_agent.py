"""LoopAgent: runs its sub-agents in order, again and again, until one escalates or the
iteration limit is reached."""

from __future__ import annotations

from typing import AsyncGenerator, Optional

from domain.events import Event
from runtime.agents.base_agent import BaseAgent
from runtime.invocation_context import InvocationContext


class LoopAgent(BaseAgent):
    max_iterations: Optional[int] = None
    """None: loop until a sub-agent escalates (`tool_context.actions.escalate = True`)."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        if not self.sub_agents:
            return
        iterations = 0
        while self.max_iterations is None or iterations < self.max_iterations:
            for sub_agent in self.sub_agents:
                escalated = False
                agen = sub_agent.run_async(ctx)
                try:
                    async for event in agen:
                        yield event
                        if event.actions.escalate:
                            escalated = True
                finally:
                    await agen.aclose()
                if escalated or ctx.end_invocation:
                    return
            iterations += 1
