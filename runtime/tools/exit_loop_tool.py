"""exit_loop: the tool a LoopAgent's sub-agent calls to end the loop."""

from __future__ import annotations

from runtime.tools.tool_context import ToolContext


def exit_loop(tool_context: ToolContext) -> None:
    """Exits the loop.

    Call this function only when you are instructed to do so.
    """
    tool_context.actions.escalate = True
    tool_context.actions.skip_summarization = True
