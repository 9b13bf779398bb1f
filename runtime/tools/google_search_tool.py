"""google_search: Gemini's built-in Google Search grounding."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from google.genai import types

from runtime.tools.builtin import BuiltInTool

if TYPE_CHECKING:
    from runtime.models import LlmRequest
    from runtime.tools.tool_context import ToolContext


class GoogleSearchTool(BuiltInTool):
    """Search grounding run by the model. ``model`` sends the request to that model instead.

    ``bypass_multi_tools_limit`` is accepted as ADK has it, and changes nothing here: Chronicle
    always declares search next to the agent's other tools, which Gemini 2 and later accept
    (ADK instead wraps search in a sub-agent for Gemini 1.x unless told to bypass)."""

    def __init__(self, *, bypass_multi_tools_limit: bool = False, model: Optional[str] = None):
        super().__init__(name="google_search", field="google_search", value=types.GoogleSearch(),
                         label="Google search tool")
        self.bypass_multi_tools_limit = bypass_multi_tools_limit
        self.model = model

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        if self.model is not None:
            llm_request.model = self.model
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)


google_search = GoogleSearchTool()
