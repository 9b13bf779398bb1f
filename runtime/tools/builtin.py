"""Gemini's built-in tools: declared to the model in the request's config, run by the model
itself (never locally), and only offered to Gemini models."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from google.genai import types

from domain.errors import InvalidArgumentError
from runtime.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from runtime.models import LlmRequest
    from runtime.tools.tool_context import ToolContext

# ADK's switch for model names that are Gemini behind another name (a proxy, a tuned model).
DISABLE_MODEL_CHECK = "ADK_DISABLE_GEMINI_MODEL_ID_CHECK"


def is_gemini_model(model: str | None) -> bool:
    """True for "gemini-…", "models/gemini-…" and Vertex paths ending in ".../models/gemini-…"."""
    return bool(model) and re.match(r"^gemini-", model.rsplit("/", 1)[-1]) is not None


def require_gemini(model: str | None, what: str) -> None:
    """Refuses a model that cannot run what Gemini runs itself (unless DISABLE_MODEL_CHECK is set).
    The message starts as google-adk's does ("Google search tool is not supported for model x")."""
    if not is_gemini_model(model) and os.environ.get(DISABLE_MODEL_CHECK, "").lower() not in ("1", "true", "yes"):
        raise InvalidArgumentError(
            f"{what} is not supported for model {model}: it is built into Gemini. Use a gemini-* model "
            f"(or set {DISABLE_MODEL_CHECK}=1 for a Gemini model under another name)."
        )


class BuiltInTool(BaseTool):
    """A tool the model runs: adding it puts ``types.Tool(**{field: value})`` in the config."""

    def __init__(self, *, name: str, field: str, value: Any, label: str):
        super().__init__(name=name, description=name)
        self._tool = types.Tool(**{field: value})
        self.label = label  # how ADK's refusal names the tool, e.g. "Google search tool"

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        require_gemini(llm_request.model, self.label)
        llm_request.config.tools = [*(llm_request.config.tools or []), self._tool.model_copy(deep=True)]
