"""AgentNode: an agent (e.g. an LlmAgent) as a workflow node."""

from __future__ import annotations

from typing import Any, AsyncGenerator

from runtime.workflow.base_node import BaseNode
from runtime.workflow.context import Context


class AgentNode(BaseNode):
    """Runs `agent.run_async` on the session so far; the agent's events are the node's events, and
    its last final text (or, with an output_key, the value it stored) is the node's output."""

    agent: Any

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        invocation = ctx.invocation_context.model_copy(update={"agent": self.agent})
        final_text = None
        agen = self.agent.run_async(invocation)
        try:
            async for event in agen:
                if not event.partial and event.is_final_response() and event.text():
                    final_text = event.text()
                yield event
        finally:
            await agen.aclose()
        output_key = getattr(self.agent, "output_key", None)
        yield ctx.state.get(output_key) if output_key else final_text
