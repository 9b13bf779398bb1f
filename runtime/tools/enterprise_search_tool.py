"""enterprise_web_search: Gemini's built-in web grounding for enterprise compliance (Gemini on
Vertex AI runs it), at google-adk 2.13's path. Not Vertex AI Search: see vertex_ai_search_tool."""

from __future__ import annotations

from google.genai import types

from runtime.tools.builtin import BuiltInTool


class EnterpriseWebSearchTool(BuiltInTool):
    def __init__(self) -> None:
        super().__init__(name="enterprise_web_search", field="enterprise_web_search",
                         value=types.EnterpriseWebSearch(), label="Enterprise Web Search tool")


enterprise_web_search_tool = EnterpriseWebSearchTool()
