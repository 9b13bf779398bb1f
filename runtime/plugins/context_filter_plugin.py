"""ContextFilterPlugin: sends the model only the last few invocations of a long conversation
(the log keeps everything; only the request shrinks)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable, Optional, Sequence

from google.genai import types

from domain.errors import InvalidArgumentError
from runtime.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from runtime.contexts import CallbackContext
    from runtime.models import LlmRequest, LlmResponse

logger = logging.getLogger("chronicle.plugins.context_filter")


class ContextFilterPlugin(BasePlugin):
    """Keeps the last ``num_invocations_to_keep`` invocations once there are
    ``num_invocations_to_keep + remove_amount`` (so the context is cut in steps, not every turn),
    then applies ``custom_filter``. An invocation starts at a user's message (a tool result is
    not one), and a cut never separates a tool result from its call."""

    def __init__(
        self,
        num_invocations_to_keep: Optional[int] = None,
        custom_filter: Optional[Callable[[list[types.Content]], list[types.Content]]] = None,
        name: str = "context_filter_plugin",
        remove_amount: int = 1,
    ):
        if remove_amount < 1:
            raise InvalidArgumentError("remove_amount must be at least 1")
        super().__init__(name)
        self.num_invocations_to_keep = num_invocations_to_keep
        self.custom_filter = custom_filter
        self.remove_amount = remove_amount

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> Optional[LlmResponse]:
        try:
            contents = list(llm_request.contents)
            keep = self.num_invocations_to_keep
            if keep and keep > 0:
                starts = _invocation_starts(contents)
                if len(starts) >= keep + self.remove_amount:
                    contents = contents[_keep_pairs(contents, starts[-keep]):]
            if self.custom_filter:
                contents = self.custom_filter(contents)
            llm_request.contents = contents
        except Exception:  # noqa: BLE001 - a failed filter sends the whole context, as in ADK
            logger.exception("ContextFilterPlugin could not filter the request; it is sent unfiltered")
        return None


def _is_user_message(content: types.Content) -> bool:
    return content.role == "user" and not any(p.function_response for p in content.parts or [])


def _invocation_starts(contents: Sequence[types.Content]) -> list[int]:
    starts, previous = [], False
    for i, content in enumerate(contents):
        current = _is_user_message(content)
        if current and not previous:
            starts.append(i)
        previous = current
    return starts


def _keep_pairs(contents: Sequence[types.Content], split: int) -> int:
    """The latest index at or before ``split`` whose suffix has no tool result without its call."""
    unanswered: set[str] = set()
    for i in range(len(contents) - 1, -1, -1):
        for part in reversed(contents[i].parts or []):
            if part.function_response and part.function_response.id:
                unanswered.add(part.function_response.id)
            if part.function_call and part.function_call.id:
                unanswered.discard(part.function_call.id)
        if i <= split and not unanswered:
            return i
    return 0
