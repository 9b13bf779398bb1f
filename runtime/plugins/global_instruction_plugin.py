"""GlobalInstructionPlugin: one instruction put first in every model call of the App."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Optional, Union

from google.genai import types

from runtime.agents.instructions import inject_session_state
from runtime.contexts import ReadonlyContext
from runtime.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from runtime.agents.llm_agent import InstructionProvider
    from runtime.contexts import CallbackContext
    from runtime.models import LlmRequest, LlmResponse


class GlobalInstructionPlugin(BasePlugin):
    """The App-level replacement for LlmAgent.global_instruction: a text (with ``{state}``
    placeholders filled in) or an InstructionProvider (sync or async, used as it returns)."""

    def __init__(self, global_instruction: Union[str, InstructionProvider] = "", name: str = "global_instruction"):
        super().__init__(name=name)
        self.global_instruction = global_instruction

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> Optional[LlmResponse]:
        if not self.global_instruction:
            return None
        text = await self._resolve(callback_context)
        if text:
            llm_request.config.system_instruction = _prepend(text, llm_request.config.system_instruction)
        return None

    async def _resolve(self, context: CallbackContext) -> str:
        if isinstance(self.global_instruction, str):
            return await inject_session_state(self.global_instruction, context._invocation_context)
        text = self.global_instruction(ReadonlyContext(context._invocation_context))
        return await text if inspect.isawaitable(text) else text


def _prepend(text: str, existing: types.ContentUnion | None) -> types.ContentUnion:
    """``text`` first, then the instruction already there, whatever shape it has."""
    if not existing:
        return text
    if isinstance(existing, str):
        return f"{text}\n\n{existing}"
    if isinstance(existing, types.Content):
        return existing.model_copy(update={"parts": [types.Part(text=text), *(existing.parts or [])]})
    return [text, *(existing if isinstance(existing, list) else [existing])]
