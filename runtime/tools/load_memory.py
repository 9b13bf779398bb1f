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

# google-adk 2.13's words (and this tool's docstring and declaration below): the model must see them unchanged.
MEMORY_INSTRUCTION = """
You have memory. You can use it to answer questions. If any questions need
you to look up the memory, you should call load_memory function with a query.
"""


def memory_text(entry: MemoryEntry) -> str:
    """The text of a remembered entry (its text parts, joined by a space, as google-adk joins them)."""
    parts = (entry.content.parts or []) if entry.content else []
    return " ".join(p.text for p in parts if p.text)


class LoadMemoryResponse(BaseModel):
    """What `load_memory` returns, as google-adk's does: the tool's result is
    `{"result": {"memories": [MemoryEntry, ...]}}` (each entry with its content, author,
    timestamp, id and custom_metadata)."""

    memories: list[MemoryEntry] = Field(default_factory=list)


async def load_memory(query: str, tool_context: ToolContext) -> LoadMemoryResponse:
    """Loads the memory for the current user.

    Args:
      query: The query to load the memory for.

    Returns:
      A list of memory results.
    """
    response = await tool_context.search_memory(query)
    return LoadMemoryResponse(memories=response.memories)


class LoadMemoryTool(FunctionTool):
    """`load_memory(query)`, plus an instruction telling the model that it has a memory."""

    def __init__(self) -> None:
        super().__init__(load_memory)

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        return types.FunctionDeclaration(name=self.name, description=self.description, parameters_json_schema={
            "type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        llm_request.append_instructions([MEMORY_INSTRUCTION])


load_memory_tool = LoadMemoryTool()
