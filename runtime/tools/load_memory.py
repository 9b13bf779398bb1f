"""`load_memory`: a tool the model calls to search the user's memory (ADK's name and shape)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from runtime.tools.function_tool import FunctionTool
from runtime.tools.tool_context import ToolContext

if TYPE_CHECKING:
    from runtime.models import LlmRequest
    from runtime.memory.base import MemoryEntry

MEMORY_INSTRUCTION = (
    "You have a memory of earlier conversations with this user. When a question may depend on "
    "something said before, call the `load_memory` function with a short query to look it up."
)


def memory_text(entry: MemoryEntry) -> str:
    """The text of a remembered entry (its text parts, joined)."""
    parts = (entry.content.parts or []) if entry.content else []
    return "\n".join(p.text for p in parts if p.text)


async def load_memory(query: str, tool_context: ToolContext) -> dict[str, Any]:
    """Searches the memory of the current user.

    Args:
      query: What to look for, in a few keywords.

    Returns:
      The best matching memories, each with its text, author and time.
    """
    response = await tool_context.search_memory(query)
    return {
        "memories": [
            {"text": memory_text(m), "author": m.author, "timestamp": m.timestamp}
            for m in response.memories
            if memory_text(m)
        ]
    }


class LoadMemoryTool(FunctionTool):
    """`load_memory(query)`, plus an instruction telling the model that it has a memory."""

    def __init__(self) -> None:
        super().__init__(load_memory)

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        return types.FunctionDeclaration(
            name=self.name,
            description="Searches the memory of earlier conversations with the current user.",
            parameters=types.Schema(
                type=types.Type.OBJECT,
                properties={"query": types.Schema(type=types.Type.STRING, description="What to look for.")},
                required=["query"],
            ),
        )

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        llm_request.append_instructions([MEMORY_INSTRUCTION])


load_memory_tool = LoadMemoryTool()
