"""`load_memory`: a tool the model calls to search the user's memory (ADK's name and shape)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from google.genai import types
from pydantic import BaseModel, Field

from runtime.memory.base import MemoryEntry
from runtime.tools.function_tool import FunctionTool
from runtime.tools.tool_context import ToolContext

if TYPE_CHECKING:
    from runtime.models import LlmRequest

MEMORY_INSTRUCTION = (
    "You have a memory of earlier conversations with this user. When a question may depend on "
    "something said before, call the `load_memory` function with a short query to look it up."
)


def memory_text(entry: MemoryEntry) -> str:
    """The text of a remembered entry (its text parts, joined)."""
    parts = (entry.content.parts or []) if entry.content else []
    return "\n".join(p.text for p in parts if p.text)


class LoadMemoryResponse(BaseModel):
    """What `load_memory` returns, as google-adk's does: the tool's result is
    `{"result": {"memories": [MemoryEntry, ...]}}` (each entry with its content, author,
    timestamp, id and custom_metadata)."""

    memories: list[MemoryEntry] = Field(default_factory=list)


async def load_memory(query: str, tool_context: ToolContext) -> LoadMemoryResponse:
    """Searches the memory of the current user.

    Args:
      query: What to look for, in a few keywords.

    Returns:
      The best matching memories.
    """
    response = await tool_context.search_memory(query)
    return LoadMemoryResponse(memories=response.memories)


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
