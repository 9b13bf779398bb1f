"""BuiltInPlanner: the model's own thinking (`thinking_config`), set on every request."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from google.genai import types

from runtime.planners.base_planner import BasePlanner

if TYPE_CHECKING:
    from runtime.contexts import CallbackContext, ReadonlyContext
    from runtime.models import LlmRequest


class BuiltInPlanner(BasePlanner):
    """Sets `thinking_config` on each request; it wins over one in generate_content_config."""

    def __init__(self, *, thinking_config: types.ThinkingConfig):
        self.thinking_config = thinking_config

    def apply_thinking_config(self, llm_request: LlmRequest) -> None:
        if self.thinking_config:
            llm_request.config = llm_request.config or types.GenerateContentConfig()
            llm_request.config.thinking_config = self.thinking_config

    def build_planning_instruction(self, readonly_context: ReadonlyContext, llm_request: LlmRequest) -> Optional[str]:
        return None

    def process_planning_response(
        self, callback_context: CallbackContext, response_parts: list[types.Part]
    ) -> Optional[list[types.Part]]:
        return None
