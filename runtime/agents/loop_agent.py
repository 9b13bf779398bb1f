"""LoopAgent: runs its sub-agents in order, again and again, until one escalates or the
iteration limit is reached."""

from __future__ import annotations

from typing import AsyncGenerator, Optional

from domain.events import Event
from runtime.agents.base_agent import BaseAgent
from runtime.invocation_context import InvocationContext


class LoopAgent(BaseAgent):
    max_iterations: Optional[int] = None
    """None: loop until a sub-agent escalates (`tool_context.actions.escalate = True`).

    In a resumable app the loop records an `agent_state` event ({"current_sub_agent", "times_looped"})
    as each sub-agent starts, so a resumed invocation goes on from there."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        if not self.sub_agents:
            return
        iterations, start = 0, 0
        resuming_sub_agent = False
        state = ctx.agent_states.get(self.name) if ctx.is_resumable and ctx.resuming else None
        if state:
            # A resumed invocation: go on with the sub-agent (and iteration) the loop was on.
            names = [a.name for a in self.sub_agents]
            iterations = int(state.get("times_looped") or 0)
            start = names.index(state["current_sub_agent"]) if state.get("current_sub_agent") in names else 0
            resuming_sub_agent = True
        while self.max_iterations is None or iterations < self.max_iterations:
            for sub_agent in self.sub_agents[start:]:
                if ctx.is_resumable and not resuming_sub_agent:
                    # Recorded so a resume knows where the loop was; the sub-agent starts afresh.
                    ctx.reset_agent_states(sub_agent)
                    yield ctx.agent_state_event(
                        self.name, agent_state={"current_sub_agent": sub_agent.name, "times_looped": iterations}
                    )
                resuming_sub_agent = False
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
                if ctx.is_resumable and sub_agent.name in ctx.paused_agents:
                    return
            start = 0
            iterations += 1
