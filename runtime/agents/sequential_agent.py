"""SequentialAgent: runs its sub-agents one after another."""

from __future__ import annotations

import logging
from typing import AsyncGenerator

from typing_extensions import deprecated

from domain.events import Event
from runtime.agents.base_agent import BaseAgent, BaseAgentState
from runtime.invocation_context import InvocationContext

logger = logging.getLogger(__name__)


class SequentialAgentState(BaseAgentState):
    """The sub-agent a SequentialAgent runs."""

    current_sub_agent: str = ""


# ADK 2.13's warning, word for word, so a ported app sees what it saw on ADK.
@deprecated(
    "SequentialAgent is deprecated in favor of Workflow and will be removed"
    " in a future version. Workflow cannot yet be used as an LlmAgent"
    " sub-agent."
)
class SequentialAgent(BaseAgent):
    """Runs its sub-agents in order. In a resumable app it records a SequentialAgentState as each
    sub-agent starts, and a sub-agent that pauses stops the sequence; a resumed invocation goes
    on from the recorded sub-agent."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        state = self._load_agent_state(ctx, SequentialAgentState) if ctx.is_resumable else None
        start = _start_of(self, state)
        resuming_sub_agent = state is not None
        for sub_agent in self.sub_agents[start:]:
            if ctx.is_resumable and not resuming_sub_agent:
                ctx.set_agent_state(self.name, agent_state=SequentialAgentState(current_sub_agent=sub_agent.name))
                yield self._create_agent_state_event(ctx)
            resuming_sub_agent = False
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


def _start_of(agent: SequentialAgent, state: "SequentialAgentState | None") -> int:
    if state is None or not state.current_sub_agent:
        return 0
    names = [a.name for a in agent.sub_agents]
    if state.current_sub_agent not in names:
        logger.warning("Sub-agent %s of %s is gone; the sequence starts again.", state.current_sub_agent, agent.name)
        return 0
    return names.index(state.current_sub_agent)
