"""BuiltInCodeExecutor: the model runs code itself (Gemini's code-execution tool)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from google.genai import types

from runtime.code_executors.base_code_executor import BaseCodeExecutor

if TYPE_CHECKING:
    from runtime.models import LlmRequest


class BuiltInCodeExecutor(BaseCodeExecutor):
    """Declares Gemini's code-execution tool on each request; the code runs on the model's side,
    and its code and results come back as parts of the model's answer."""

    def process_llm_request(self, llm_request: LlmRequest) -> None:
        from runtime.tools.builtin import require_gemini  # here: runtime.tools imports the agents, which import this

        require_gemini(llm_request.model, "Gemini code execution tool")
        llm_request.config = llm_request.config or types.GenerateContentConfig()
        llm_request.config.tools = list(llm_request.config.tools or [])
        llm_request.config.tools.append(types.Tool(code_execution=types.ToolCodeExecution()))
