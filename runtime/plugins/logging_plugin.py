"""A plugin that reports every step of every invocation: a quick way to see what runs."""

from __future__ import annotations

import logging
from typing import Any, Optional

from google.genai import types

from domain.events import Event
from runtime.plugins.base_plugin import BasePlugin


def _short(value: Any, limit: int = 200) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _content_text(content: Optional[types.Content]) -> str:
    if not content or not content.parts:
        return "(none)"
    pieces = []
    for part in content.parts:
        if part.text:
            pieces.append(_short(part.text))
        elif part.function_call:
            pieces.append(f"call {part.function_call.name}({_short(part.function_call.args)})")
        elif part.function_response:
            pieces.append(f"result of {part.function_response.name}: {_short(part.function_response.response)}")
        else:
            pieces.append("(non-text part)")
    return " | ".join(pieces)


class LoggingPlugin(BasePlugin):
    """Prints (or, given a `logger`, logs at INFO) one line per hook. Never changes anything."""

    def __init__(self, name: str = "logging_plugin", logger: Optional[logging.Logger] = None):
        super().__init__(name)
        self._logger = logger

    def _log(self, message: str) -> None:
        if self._logger is not None:
            self._logger.info("[%s] %s", self.name, message)
        else:
            print(f"\033[90m[{self.name}] {message}\033[0m")

    async def on_user_message_callback(self, *, invocation_context, user_message):
        self._log(
            f"user message (invocation {invocation_context.invocation_id}, session "
            f"{invocation_context.session.id}): {_content_text(user_message)}"
        )
        return None

    async def before_run_callback(self, *, invocation_context):
        self._log(f"run starts: agent {invocation_context.agent.name}, invocation {invocation_context.invocation_id}")
        return None

    async def on_event_callback(self, *, invocation_context, event: Event):
        flags = []
        if event.partial:
            flags.append("partial")
        if event.is_final_response():
            flags.append("final")
        if event.actions.state_delta:
            flags.append(f"state_delta={_short(event.actions.state_delta)}")
        if event.actions.artifact_delta:
            flags.append(f"artifact_delta={event.actions.artifact_delta}")
        if event.actions.transfer_to_agent:
            flags.append(f"transfer_to={event.actions.transfer_to_agent}")
        if event.actions.escalate:
            flags.append("escalate")
        if event.error_code:
            flags.append(f"error={event.error_code}: {_short(event.error_message)}")
        self._log(f"event {event.id} by {event.author}: {_content_text(event.content)} {' '.join(flags)}".rstrip())
        return None

    async def after_run_callback(self, *, invocation_context):
        self._log(
            f"run ends: invocation {invocation_context.invocation_id} "
            f"({invocation_context.llm_call_count} model calls)"
        )

    async def before_agent_callback(self, *, agent, callback_context):
        self._log(f"agent {agent.name} starts (branch {callback_context.branch})")
        return None

    async def after_agent_callback(self, *, agent, callback_context):
        self._log(f"agent {agent.name} ends")
        return None

    async def before_model_callback(self, *, callback_context, llm_request):
        tools = ", ".join(llm_request.tools_dict) or "none"
        self._log(
            f"model {llm_request.model} called by {callback_context.agent_name}: "
            f"{len(llm_request.contents)} contents, tools: {tools}"
        )
        return None

    async def after_model_callback(self, *, callback_context, llm_response):
        if llm_response.error_code:
            self._log(f"model error {llm_response.error_code}: {_short(llm_response.error_message)}")
        elif not llm_response.partial:
            self._log(f"model answered: {_content_text(llm_response.content)}")
        return None

    async def on_model_error_callback(self, *, callback_context, llm_request, error):
        self._log(f"model call failed in {callback_context.agent_name}: {type(error).__name__}: {_short(error)}")
        return None

    async def before_tool_callback(self, *, tool, tool_args, tool_context):
        self._log(f"tool {tool.name} called ({tool_context.function_call_id}) with {_short(tool_args)}")
        return None

    async def after_tool_callback(self, *, tool, tool_args, tool_context, result):
        self._log(f"tool {tool.name} returned {_short(result)}")
        return None

    async def on_tool_error_callback(self, *, tool, tool_args, tool_context, error):
        self._log(f"tool {tool.name} failed: {type(error).__name__}: {_short(error)}")
        return None
