"""`preload_memory`: before each model call, puts what memory holds about the user's message into
the request, as a user content just before the current turn (ADK's name, words and place). The
model never calls it."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from google.genai import types

from runtime.agents.static_instruction import insert_before_current_turn
from runtime.tools.base_tool import BaseTool
from runtime.tools.load_memory import memory_text
from runtime.tools.tool_context import ToolContext

if TYPE_CHECKING:
    from runtime.models import LlmRequest

logger = logging.getLogger("chronicle.tools.preload_memory")


def past_conversations(lines: list[str]) -> types.Content:
    """What memory found, as google-adk 2.13 words it: a user content of the current turn."""
    text = (
        "The following content is from your previous conversations with the user.\n"
        "They may be useful for answering the user's current query.\n"
        "<PAST_CONVERSATIONS>\n" + "\n".join(lines) + "\n</PAST_CONVERSATIONS>\n"
    )
    return types.Content(role="user", parts=[types.Part(text=text)])


class PreloadMemoryTool(BaseTool):
    def __init__(self) -> None:
        super().__init__(name="preload_memory", description="preload_memory")

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        user_content = tool_context.user_content
        parts = (user_content.parts or []) if user_content else []
        query = " ".join(p.text for p in parts if p.text and not p.thought)
        if not query:
            return
        try:
            response = await tool_context.search_memory(query)
        except Exception:  # noqa: BLE001 - as in google-adk, a failed search leaves the request as it is
            logger.warning("Failed to preload memory (query length: %d)", len(query), exc_info=True)
            return
        lines = []
        for memory in response.memories:
            if memory.timestamp:
                lines.append(f"Time: {memory.timestamp}")
            text = memory_text(memory)
            if text:
                lines.append(f"{memory.author}: {text}" if memory.author else text)
        if lines:
            # Before the current turn (after a tool's result when the model goes on from one), as in ADK.
            insert_before_current_turn(llm_request.contents, past_conversations(lines))


preload_memory_tool = PreloadMemoryTool()
