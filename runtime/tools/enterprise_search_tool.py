"""enterprise_web_search: Gemini's built-in web search for enterprise compliance (ADK 2.13's name)."""

from __future__ import annotations

from google.genai import types

from runtime.tools.builtin import BuiltInTool


class EnterpriseWebSearchTool(BuiltInTool):
    def __init__(self) -> None:
        super().__init__(name="enterprise_web_search", field="enterprise_web_search", value=types.EnterpriseWebSearch())


enterprise_web_search = EnterpriseWebSearchTool()
