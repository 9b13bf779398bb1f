"""What a tool gets: a CallbackContext for one function call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from domain.events import EventActions
from runtime.contexts import CallbackContext

if TYPE_CHECKING:
    from runtime.invocation_context import InvocationContext


class ToolContext(CallbackContext):
    """The context of one function call. `state` writes and `actions` (transfer_to_agent, escalate,
    skip_summarization, artifact_delta) go into the function-response event of this call."""

    def __init__(
        self,
        invocation_context: InvocationContext,
        *,
        function_call_id: Optional[str] = None,
        event_actions: Optional[EventActions] = None,
        tool_confirmation: Optional[Any] = None,
    ) -> None:
        super().__init__(invocation_context, event_actions=event_actions)
        self.function_call_id = function_call_id
        self.tool_confirmation = tool_confirmation

    @property
    def invocation_context(self) -> InvocationContext:
        return self._invocation_context
