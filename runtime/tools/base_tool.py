"""BaseTool: something a model can call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

if TYPE_CHECKING:
    from runtime.models import LlmRequest
    from runtime.tools.tool_context import ToolContext


class BaseTool:
    response_scheduling: Optional[types.FunctionResponseScheduling] = None
    """How a live model takes this tool's results (ADK's); set on each FunctionResponse when not None."""

    def __init__(
        self,
        *,
        name: str,
        description: str = "",
        is_long_running: bool = False,
        custom_metadata: Optional[dict[str, Any]] = None,
        response_scheduling: Optional[types.FunctionResponseScheduling] = None,
    ):
        self.name = name
        self.description = description
        self.is_long_running = is_long_running
        self.custom_metadata = custom_metadata
        self.response_scheduling = response_scheduling

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        """The function declaration the model sees; None for tools the model does not call."""
        return None

    async def check_require_confirmation(self, args: dict[str, Any], tool_context: ToolContext) -> bool:
        """Whether a person must approve this call before it runs. The runtime asks, and never
        runs the call unapproved, whatever the kind of tool. Override to gate a tool."""
        return False

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        raise NotImplementedError(f"Tool {self.name!r} does not implement run_async")

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        """Adds the tool to a model request. Override to change the request in other ways."""
        llm_request.append_tools([self])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


from runtime.tools.base_toolset import BaseToolset  # noqa: E402 - its home is base_toolset, as in ADK
