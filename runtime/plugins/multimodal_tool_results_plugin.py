"""MultimodalToolResultsPlugin: a tool may return Parts (an image, a file, text), which are
given to the model with the tool's result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Optional

from google.genai import types

from domain.errors import InvalidArgumentError
from runtime.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from runtime.contexts import CallbackContext
    from runtime.models import LlmRequest, LlmResponse
    from runtime.tools.base_tool import BaseTool
    from runtime.tools.tool_context import ToolContext

# The parts of this invocation's tool results, waiting for the next model call (never stored).
PARTS_RETURNED_BY_TOOLS_ID = "temp:PARTS_RETURNED_BY_TOOLS_ID"
# With retention="session": the latest text and file parts, stored in the session's state.
SESSION_PARTS_RETURNED_BY_TOOLS_ID = "multimodal_tool_results_plugin:PARTS_RETURNED_BY_TOOLS_ID"


class MultimodalToolResultsPlugin(BasePlugin):
    """``retention="next_model_call"`` gives the parts to the next model call only;
    ``retention="session"`` also keeps the text and file-reference parts (not inline bytes) in
    the session's state and gives the latest of them to every later model call."""

    def __init__(
        self,
        name: str = "multimodal_tool_results_plugin",
        *,
        retention: Literal["next_model_call", "session"] = "next_model_call",
    ):
        if retention not in ("next_model_call", "session"):
            raise InvalidArgumentError(f"retention must be 'next_model_call' or 'session', got {retention!r}")
        super().__init__(name)
        self.retention = retention

    async def after_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, result: Any
    ) -> Optional[dict]:
        parts = _parts(result)
        if not parts:
            return None
        state = tool_context.state
        state[PARTS_RETURNED_BY_TOOLS_ID] = [*(state.get(PARTS_RETURNED_BY_TOOLS_ID) or []), *parts]
        if self.retention == "session":
            kept = [p.model_dump(mode="json", exclude_none=True) for p in parts if p.text or p.file_data]
            if kept:
                state[SESSION_PARTS_RETURNED_BY_TOOLS_ID] = kept
        return {"result": f"The tool returned {len(parts)} part(s), attached to this message."}

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> Optional[LlmResponse]:
        state = callback_context.state
        fresh = list(state.get(PARTS_RETURNED_BY_TOOLS_ID) or [])
        kept = []
        if self.retention == "session":
            kept = [types.Part.model_validate(p) for p in state.get(SESSION_PARTS_RETURNED_BY_TOOLS_ID) or []]
            kept = [p for p in kept if p not in fresh]
        if (fresh or kept) and llm_request.contents:
            last = llm_request.contents[-1]
            llm_request.contents[-1] = last.model_copy(update={"parts": [*(last.parts or []), *kept, *fresh]})
        if fresh:
            state[PARTS_RETURNED_BY_TOOLS_ID] = []
        return None


def _parts(result: Any) -> list[types.Part]:
    if isinstance(result, types.Part):
        return [result]
    if isinstance(result, list) and result and all(isinstance(p, types.Part) for p in result):
        return list(result)
    return []
