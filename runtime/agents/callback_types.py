"""The callback type aliases google-adk 2.13 exports from `agents.base_agent` and
`agents.llm_agent`, so annotations in a ported app keep resolving. Each is one callable or a
list of them, sync or async; returning None lets the step run, a value replaces its result."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Optional, Union

from google.genai import types

from runtime.contexts import CallbackContext
from runtime.models.llm_request import LlmRequest
from runtime.models.llm_response import LlmResponse
from runtime.tools.base_tool import BaseTool
from runtime.tools.tool_context import ToolContext



def _one_or_many(single: Any) -> Any:
    return Union[single, list[single]]


_AgentStep = Callable[[CallbackContext], Union[Awaitable[Optional[types.Content]], Optional[types.Content]]]
_ModelResult = Union[Awaitable[Optional[LlmResponse]], Optional[LlmResponse]]
_ToolResult = Union[Awaitable[Optional[dict[str, Any]]], Optional[dict[str, Any]]]

BeforeAgentCallback = _one_or_many(_AgentStep)
AfterAgentCallback = _one_or_many(_AgentStep)
BeforeModelCallback = _one_or_many(Callable[[CallbackContext, LlmRequest], _ModelResult])
AfterModelCallback = _one_or_many(Callable[[CallbackContext, LlmResponse], _ModelResult])
OnModelErrorCallback = _one_or_many(Callable[[CallbackContext, LlmRequest, Exception], _ModelResult])
BeforeToolCallback = _one_or_many(Callable[[BaseTool, dict[str, Any], ToolContext], _ToolResult])
AfterToolCallback = _one_or_many(Callable[[BaseTool, dict[str, Any], ToolContext, dict[str, Any]], _ToolResult])
OnToolErrorCallback = _one_or_many(Callable[[BaseTool, dict[str, Any], ToolContext, Exception], _ToolResult])

__all__ = [
    "AfterAgentCallback",
    "AfterModelCallback",
    "AfterToolCallback",
    "BeforeAgentCallback",
    "BeforeModelCallback",
    "BeforeToolCallback",
    "OnModelErrorCallback",
    "OnToolErrorCallback",
]
