"""url_context: Gemini's built-in reading of the URLs in a prompt."""

from __future__ import annotations

from google.genai import types

from runtime.tools.builtin import BuiltInTool


class UrlContextTool(BuiltInTool):
    def __init__(self) -> None:
        super().__init__(name="url_context", field="url_context", value=types.UrlContext(), label="Url context tool")


url_context = UrlContextTool()
