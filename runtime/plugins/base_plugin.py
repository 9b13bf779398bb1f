"""Plugins: hooks that apply to every agent, tool and model call of an App."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from domain.events import Event

if TYPE_CHECKING:
    from runtime.agents.base_agent import BaseAgent
    from runtime.contexts import CallbackContext
    from runtime.invocation_context import InvocationContext
    from runtime.models import LlmRequest, LlmResponse
    from runtime.tools.base_tool import BaseTool
    from runtime.tools.tool_context import ToolContext


class BasePlugin:
    """Override the hooks you need. Plugins run before the agents' own callbacks, in the order they
    were registered; the first plugin that returns something other than None decides, and the
    rest (and the agent's callbacks) are skipped."""

    def __init__(self, name: str):
        self.name = name

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> Optional[types.Content]:
        """Return a Content to replace the user's message before it is stored."""
        return None

    async def before_run_callback(self, *, invocation_context: InvocationContext) -> Optional[types.Content]:
        """Return a Content to answer with it and skip running the agent."""
        return None

    async def on_event_callback(self, *, invocation_context: InvocationContext, event: Event) -> Optional[Event]:
        """Return an Event to replace this one; the replacement is what is stored and yielded."""
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        return None

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> Optional[types.Content]:
        return None

    async def after_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> Optional[types.Content]:
        return None

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> Optional[LlmResponse]:
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> Optional[LlmResponse]:
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> Optional[LlmResponse]:
        return None

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> Optional[dict]:
        return None

    async def after_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, result: dict
    ) -> Optional[dict]:
        return None

    async def on_tool_error_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, error: Exception
    ) -> Optional[dict]:
        return None

    async def on_agent_error_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext, error: Exception
    ) -> None:
        """An exception escaped `agent`'s run. A notification: the error is raised again after
        every plugin has been told, whatever this returns."""
        return None

    async def on_run_error_callback(self, *, invocation_context: InvocationContext, error: Exception) -> None:
        """An exception escaped the Runner's invocation. A notification: the error is raised again
        after every plugin has been told, whatever this returns."""
        return None

    async def close(self) -> None:
        """Release what the plugin holds; called by Runner.close()."""
