"""LoopAgent: runs its sub-agents in order, again and again, until one escalates or the
iteration limit is reached."""

from __future__ import annotations

import logging
from typing import AsyncGenerator, Optional

from typing_extensions import deprecated

from domain.events import Event
from runtime.agents.base_agent import BaseAgent, BaseAgentState
from runtime.invocation_context import InvocationContext

logger = logging.getLogger(__name__)


class LoopAgentState(BaseAgentState):
    """Where a LoopAgent is: the sub-agent it runs, and how many full iterations it finished."""

    current_sub_agent: str = ""
    times_looped: int = 0


# ADK 2.13's warning, word for word, so a ported app sees what it saw on ADK.
@deprecated(
    "LoopAgent is deprecated in favor of Workflow and will be removed in a"
    " future version. Workflow cannot yet be used as an LlmAgent sub-agent."
)
class LoopAgent(BaseAgent):
    max_iterations: Optional[int] = None
    """None: loop until a sub-agent escalates (`tool_context.actions.escalate = True`).

    In a resumable app the loop records a LoopAgentState as each sub-agent starts, so a resumed
    invocation goes on from there."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        if not self.sub_agents:
            return
        state = self._load_agent_state(ctx, LoopAgentState) if ctx.is_resumable else None
        iterations, start = _start_of(self, state)
        resuming_sub_agent = state is not None
        while self.max_iterations is None or iterations < self.max_iterations:
            for sub_agent in self.sub_agents[start:]:
                if ctx.is_resumable and not resuming_sub_agent:
                    # Recorded so a resume knows where the loop was. A sub-agent that ran before in
                    # this invocation (an earlier iteration) starts afresh; on a fresh first
                    # iteration its state is left as it is, as in ADK.
                    if iterations or ctx.resuming:
                        ctx.reset_agent_states(sub_agent)
                    ctx.set_agent_state(
                        self.name, agent_state=LoopAgentState(current_sub_agent=sub_agent.name, times_looped=iterations)
                    )
                    yield self._create_agent_state_event(ctx)
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


def _start_of(loop: LoopAgent, state: Optional[LoopAgentState]) -> tuple[int, int]:
    """(iterations done, index of the sub-agent to run) from a recorded state."""
    if state is None:
        return 0, 0
    names = [a.name for a in loop.sub_agents]
    if state.current_sub_agent and state.current_sub_agent not in names:
        logger.warning("Sub-agent %s of %s is gone; the iteration starts again.", state.current_sub_agent, loop.name)
        return state.times_looped, 0
    return state.times_looped, names.index(state.current_sub_agent) if state.current_sub_agent else 0
