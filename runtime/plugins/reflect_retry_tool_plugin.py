"""ReflectAndRetryToolPlugin: a failing tool answers the model with guidance to reflect and try
again, up to a limit, instead of failing the run."""

from __future__ import annotations

import asyncio
import json
from enum import Enum
from typing import TYPE_CHECKING, Any, Optional

from pydantic import BaseModel

from domain.errors import InvalidArgumentError
from runtime.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from runtime.tools.base_tool import BaseTool
    from runtime.tools.tool_context import ToolContext

REFLECT_AND_RETRY_RESPONSE_TYPE = "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN"
GLOBAL_SCOPE_KEY = "__global_reflect_and_retry_scope__"


class TrackingScope(Enum):
    """How long failures are counted: within one invocation, or for the plugin's lifetime."""

    INVOCATION = "invocation"
    GLOBAL = "global"


class ToolFailureResponse(BaseModel):
    """What the model receives instead of the failed tool's result."""

    response_type: str = REFLECT_AND_RETRY_RESPONSE_TYPE
    error_type: str = ""
    error_details: str = ""
    retry_count: int = 0
    reflection_guidance: str = ""


class ReflectAndRetryToolPlugin(BasePlugin):
    """Counts consecutive failures per tool (a success resets that tool's count). Up to
    ``max_retries`` failures answer with reflection guidance; past it the error is raised, or,
    with ``throw_exception_if_retry_exceeded=False``, the model is told to stop using the tool.
    Override ``extract_error_from_result`` to treat some successful results as failures."""

    def __init__(
        self,
        name: str = "reflect_retry_tool_plugin",
        max_retries: int = 3,
        throw_exception_if_retry_exceeded: bool = True,
        tracking_scope: TrackingScope = TrackingScope.INVOCATION,
    ):
        super().__init__(name)
        if max_retries < 0:
            raise InvalidArgumentError("max_retries must be a non-negative integer.")
        self.max_retries = max_retries
        self.throw_exception_if_retry_exceeded = throw_exception_if_retry_exceeded
        self.scope = tracking_scope
        self._failures: dict[str, dict[str, int]] = {}  # scope key -> tool name -> consecutive failures
        self._lock = asyncio.Lock()

    async def after_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, result: Any
    ) -> Optional[dict[str, Any]]:
        if isinstance(result, dict) and result.get("response_type") == REFLECT_AND_RETRY_RESPONSE_TYPE:
            return None  # our own answer to an error, passing through
        error = await self.extract_error_from_result(
            tool=tool, tool_args=tool_args, tool_context=tool_context, result=result
        )
        if error:
            return await self._handle_tool_error(tool, tool_args, tool_context, error)
        async with self._lock:
            self._failures.get(self._get_scope_key(tool_context), {}).pop(tool.name, None)
        return None

    async def extract_error_from_result(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, result: Any
    ) -> Optional[Any]:
        """The error in a result that did not raise (e.g. ``{"status": "error"}``); None by default."""
        return None

    async def on_tool_error_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, error: Exception
    ) -> Optional[dict[str, Any]]:
        if isinstance(error, asyncio.CancelledError):
            return None  # a call cancelled with a failed sibling did not fail: nothing to retry
        return await self._handle_tool_error(tool, tool_args, tool_context, error)

    def _get_scope_key(self, tool_context: ToolContext) -> str:
        """Override to count per user or per session, for instance."""
        return tool_context.invocation_id if self.scope is TrackingScope.INVOCATION else GLOBAL_SCOPE_KEY

    async def _handle_tool_error(
        self, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, error: Any
    ) -> dict[str, Any]:
        async with self._lock:
            counts = self._failures.setdefault(self._get_scope_key(tool_context), {})
            counts[tool.name] = failures = counts.get(tool.name, 0) + 1
        if failures <= self.max_retries:
            return _response(error, failures, _reflection(tool, tool_args, error, failures, self.max_retries))
        if self.throw_exception_if_retry_exceeded:
            raise error if isinstance(error, Exception) else RuntimeError(str(error))
        return _response(error, self.max_retries, _give_up(tool, tool_args, error, self.max_retries))


def _details(error: Any) -> str:
    return f"{type(error).__name__}: {error}" if isinstance(error, Exception) else str(error)


def _response(error: Any, retry_count: int, guidance: str) -> dict[str, Any]:
    return ToolFailureResponse(
        error_type=type(error).__name__ if isinstance(error, Exception) else "ToolError",
        error_details=str(error),
        retry_count=retry_count,
        reflection_guidance=guidance,
    ).model_dump(mode="json")


def _reflection(tool: BaseTool, args: dict[str, Any], error: Any, attempt: int, limit: int) -> str:
    return (
        f"The call to tool `{tool.name}` failed.\n\n**Error Details:**\n```\n{_details(error)}\n```\n\n"
        f"**Tool Arguments Used:**\n```json\n{json.dumps(args, indent=2, default=str)}\n```\n\n"
        f"**Reflection Guidance:**\nThis is retry attempt **{attempt} of {limit}**. Analyze the error and the "
        "arguments you provided; do not repeat the exact same call. Check whether an argument is wrong, badly "
        "formatted or missing; whether an earlier step should have produced something this tool needs; whether "
        "another tool or a simpler step would do; and whether the tool you called exists. Then try a corrected "
        "or different approach."
    )


def _give_up(tool: BaseTool, args: dict[str, Any], error: Any, limit: int) -> str:
    return (
        f"The tool `{tool.name}` has failed consecutively {limit} times and the retry limit has been exceeded.\n\n"
        f"**Last Error:**\n```\n{_details(error)}\n```\n\n"
        f"**Last Arguments Used:**\n```json\n{json.dumps(args, indent=2, default=str)}\n```\n\n"
        f"**Final Instruction:**\n**Do not attempt to use the `{tool.name}` tool again for this task.** Try a "
        "different approach, using other tools or telling the user that the task cannot be completed."
    )
