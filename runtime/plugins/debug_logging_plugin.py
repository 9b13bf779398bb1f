"""DebugLoggingPlugin: everything one invocation did — requests, responses, tool calls, events,
the final state — written to a file as one YAML document per invocation.

The documents are JSON, which is YAML too: ``yaml.safe_load_all`` reads the file as ADK's does,
and no YAML library is needed to write it. Secrets are redacted (keys that name a credential,
every ``temp:`` key, private-key blocks), and the file is created readable by its owner only,
because it still holds whole prompts and answers.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import re
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types
from pydantic import BaseModel

from domain.events import Event
from domain.state import is_temp
from runtime.plugins.base_plugin import BasePlugin
from runtime.plugins.reflect_retry_tool_plugin import REFLECT_AND_RETRY_RESPONSE_TYPE

if TYPE_CHECKING:
    from runtime.agents.base_agent import BaseAgent
    from runtime.contexts import CallbackContext
    from runtime.invocation_context import InvocationContext
    from runtime.models import LlmRequest, LlmResponse
    from runtime.tools.base_tool import BaseTool
    from runtime.tools.tool_context import ToolContext

logger = logging.getLogger("chronicle.plugins.debug_logging")

REDACTED = "[REDACTED]"
_SECRET_KEY = re.compile(r"(api_?key|token|secret|passw(or)?d|credential|private_?key|authorization)", re.I)
_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", re.S)
_MAX_DEPTH = 20


def _is_secret_key(key: Any) -> bool:
    return isinstance(key, str) and (is_temp(key) or bool(_SECRET_KEY.search(key)))


def redacted(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON with secrets blanked; what cannot be JSON becomes its repr."""
    if depth > _MAX_DEPTH:
        return "[too deep]"
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, dict):
        return {str(k): REDACTED if _is_secret_key(k) else redacted(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [redacted(v, depth + 1) for v in value]
    if isinstance(value, Enum):
        return redacted(value.value, depth + 1)
    if isinstance(value, str):
        return _PRIVATE_KEY.sub(REDACTED, value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return repr(value)


def _content(content: Optional[types.Content]) -> Any:
    if content is None:
        return None
    parts = []
    for part in content.parts or []:
        if part.inline_data is not None:  # bytes are summarised, not copied
            blob = part.inline_data
            parts.append({"inline_data": {"mime_type": blob.mime_type, "size": len(blob.data or b"")}})
        else:
            parts.append(part.model_dump(mode="json", exclude_none=True))
    return {"role": content.role, "parts": parts}


class DebugLoggingPlugin(BasePlugin):
    def __init__(
        self,
        *,
        name: str = "debug_logging_plugin",
        output_path: str = "adk_debug.yaml",
        include_session_state: bool = True,
        include_system_instruction: bool = True,
    ):
        super().__init__(name)
        self.output_path = Path(output_path)
        self.include_session_state = include_session_state
        self.include_system_instruction = include_system_instruction
        self._invocations: dict[str, dict[str, Any]] = {}

    def _add(self, invocation_id: str, entry_type: str, agent_name: Optional[str] = None, **data: Any) -> None:
        invocation = self._invocations.get(invocation_id)
        if invocation is None:
            return  # a hook outside a Runner run (e.g. a tool called by hand)
        entry = {"timestamp": dt.datetime.now().isoformat(), "entry_type": entry_type,
                 "invocation_id": invocation_id, "agent_name": agent_name, "data": redacted(data)}
        invocation["entries"].append({k: v for k, v in entry.items() if v is not None})

    def _open(self, ctx: InvocationContext) -> None:
        """Starts the invocation's record (the user-message hook runs before before_run)."""
        if ctx.invocation_id in self._invocations:
            return
        session = ctx.session
        self._invocations[ctx.invocation_id] = {
            "invocation_id": ctx.invocation_id, "session_id": session.id, "app_name": session.app_name,
            "user_id": ctx.user_id, "start_time": dt.datetime.now().isoformat(), "entries": [],
        }
        self._add(ctx.invocation_id, "invocation_start", getattr(ctx.agent, "name", None), branch=ctx.branch)

    async def on_user_message_callback(self, *, invocation_context: InvocationContext, user_message: types.Content):
        self._open(invocation_context)
        self._add(invocation_context.invocation_id, "user_message", content=_content(user_message))
        return None

    async def before_run_callback(self, *, invocation_context: InvocationContext) -> None:
        self._open(invocation_context)

    async def on_event_callback(self, *, invocation_context: InvocationContext, event: Event) -> None:
        self._add(invocation_context.invocation_id, "event", event.author, event_id=event.id,
                  content=_content(event.content), actions=event.actions, partial=event.partial,
                  final=event.is_final_response(), error_code=event.error_code, error_message=event.error_message)

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        invocation_id = invocation_context.invocation_id
        if invocation_id not in self._invocations:
            return
        if self.include_session_state:
            session = invocation_context.session
            self._add(invocation_id, "session_state_snapshot", state=dict(session.state),
                      event_count=len(session.events))
        self._add(invocation_id, "invocation_end")
        record = self._invocations.pop(invocation_id)
        try:
            fd = os.open(self.output_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            with os.fdopen(fd, "a", encoding="utf-8") as out:
                out.write("---\n" + json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        except OSError as e:
            logger.error("DebugLoggingPlugin could not write %s: %s", self.output_path, e)

    async def before_agent_callback(self, *, agent: BaseAgent, callback_context: CallbackContext) -> None:
        self._add(callback_context.invocation_id, "agent_start", agent.name, branch=callback_context.branch)

    async def after_agent_callback(self, *, agent: BaseAgent, callback_context: CallbackContext) -> None:
        self._add(callback_context.invocation_id, "agent_end", agent.name)

    async def before_model_callback(self, *, callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        config = llm_request.config
        data: dict[str, Any] = {
            "model": llm_request.model,
            "content_count": len(llm_request.contents),
            "contents": [_content(c) for c in llm_request.contents],
            "tools": sorted(llm_request.tools_dict),
        }
        if self.include_system_instruction and config.system_instruction:
            data["system_instruction"] = config.system_instruction
        self._add(callback_context.invocation_id, "llm_request", callback_context.agent_name, **data)

    async def after_model_callback(self, *, callback_context: CallbackContext, llm_response: LlmResponse) -> None:
        self._add(callback_context.invocation_id, "llm_response", callback_context.agent_name,
                  content=_content(llm_response.content), partial=llm_response.partial,
                  turn_complete=llm_response.turn_complete, finish_reason=llm_response.finish_reason,
                  error_code=llm_response.error_code, error_message=llm_response.error_message,
                  usage_metadata=llm_response.usage_metadata)

    async def on_model_error_callback(self, *, callback_context: CallbackContext, llm_request: LlmRequest,
                                      error: Exception) -> None:
        self._add(callback_context.invocation_id, "llm_error", callback_context.agent_name,
                  error_type=type(error).__name__, error_message=str(error), model=llm_request.model)

    async def before_tool_callback(self, *, tool: BaseTool, tool_args: dict[str, Any],
                                   tool_context: ToolContext) -> None:
        self._add(tool_context.invocation_id, "tool_call", tool_context.agent_name, tool_name=tool.name,
                  function_call_id=tool_context.function_call_id, args=tool_args)

    async def after_tool_callback(self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext,
                                  result: Any) -> None:
        # A result that reports a failure without raising: an MCP error, or ReflectAndRetry's answer.
        failed = isinstance(result, dict) and (
            result.get("isError") is True or result.get("response_type") == REFLECT_AND_RETRY_RESPONSE_TYPE
        )
        self._add(tool_context.invocation_id, "tool_error" if failed else "tool_response", tool_context.agent_name,
                  tool_name=tool.name, function_call_id=tool_context.function_call_id, result=result)

    async def on_tool_error_callback(self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext,
                                     error: Exception) -> None:
        self._add(tool_context.invocation_id, "tool_error", tool_context.agent_name, tool_name=tool.name,
                  function_call_id=tool_context.function_call_id, args=tool_args,
                  error_type=type(error).__name__, error_message=str(error))
