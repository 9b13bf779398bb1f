"""`preload_memory`: before each model call, puts what memory holds about the user's message
into the system instruction (ADK's name and behaviour). The model never calls it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from runtime.tools.base_tool import BaseTool
from runtime.tools.load_memory import memory_text
from runtime.tools.tool_context import ToolContext

if TYPE_CHECKING:
    from runtime.models import LlmRequest


def past_conversations(lines: list[str]) -> str:
    return (
        "These are excerpts of earlier conversations with the user; use them if they help with the "
        "current message.\n<PAST_CONVERSATIONS>\n" + "\n".join(lines) + "\n</PAST_CONVERSATIONS>"
    )


class PreloadMemoryTool(BaseTool):
    def __init__(self) -> None:
        super().__init__(name="preload_memory", description="preload_memory")

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        user_content = tool_context.user_content
        query = "\n".join(p.text for p in (user_content.parts or []) if p.text) if user_content else ""
        if not query.strip():
            return
        response = await tool_context.search_memory(query)
        lines = []
        for memory in response.memories:
            text = memory_text(memory)
            if not text:
                continue
            if memory.timestamp:
                lines.append(f"Time: {memory.timestamp}")
            lines.append(f"{memory.author}: {text}" if memory.author else text)
        if lines:
            llm_request.append_instructions([past_conversations(lines)])


preload_memory_tool = PreloadMemoryTool()
