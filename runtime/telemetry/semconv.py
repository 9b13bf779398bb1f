"""The spans' names and attributes (OpenTelemetry's GenAI semantic conventions, plus Chronicle's
pointers into the log), in one place for the live spans and the ones folded from a log.

Three kinds of span, nested the way the Runner runs them:

    invoke_agent {agent}                      an agent's run (a transfer nests the next agent's run)
      generate_content {model} | chat {model} one model call (Gemini's API is generate_content)
      execute_tool {tool}                     one tool call

Every span carries the session (``gen_ai.conversation.id``), the invocation
(``chronicle.invocation.id``) and, once the event it produced is logged, that event's id, its
version in the session's log and its digest (``chronicle.event.*``), so a span points at the exact
logged event: a model call at the model's turn, a tool call at the event holding its result, an
agent at the last event it logged.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
AGENT_NAME = "gen_ai.agent.name"
CONVERSATION_ID = "gen_ai.conversation.id"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
ERROR_TYPE = "error.type"
INVOCATION_ID = "chronicle.invocation.id"
EVENT_ID = "chronicle.event.id"
LOG_VERSION = "chronicle.log.version"
EVENT_DIGEST = "chronicle.event.digest"

INVOKE_AGENT = "invoke_agent"
EXECUTE_TOOL = "execute_tool"
# What an {"error": ...} tool result is called when no exception says more (the convention's
# fallback value for an error without a type).
TOOL_ERROR = "_OTHER"


def model_operation(model: Optional[str]) -> tuple[str, str]:
    """(gen_ai.operation.name, gen_ai.provider.name) for a model name: Gemini's API is
    ``generate_content`` from ``gcp.gemini`` (``gcp.vertex_ai`` for a Vertex resource name); any
    other model is a ``chat`` whose provider is the name's prefix (``openai/gpt-4o`` ->
    ``openai``), or ``chronicle`` for a model with no provider in its name (the scripted one)."""
    name = model or ""
    if name.startswith("projects/"):
        return "generate_content", "gcp.vertex_ai"
    if name.startswith(("gemini", "models/gemini")):
        return "generate_content", "gcp.gemini"
    provider, slash, _ = name.partition("/")
    return "chat", provider if slash and provider else "chronicle"


def model_span_name(model: Optional[str]) -> str:
    return f"{model_operation(model)[0]} {model or ''}".rstrip()


def base_attributes(operation: str, agent_name: str, conversation_id: str, invocation_id: str) -> dict[str, Any]:
    return {
        OPERATION: operation,
        AGENT_NAME: agent_name,
        CONVERSATION_ID: conversation_id,
        INVOCATION_ID: invocation_id,
    }


def model_attributes(model: Optional[str]) -> dict[str, Any]:
    operation, provider = model_operation(model)
    found = {OPERATION: operation, PROVIDER: provider}
    if model:
        found[REQUEST_MODEL] = model
    return found


def usage_attributes(usage: Optional[Mapping[str, Any]], response_model: Optional[str] = None) -> dict[str, Any]:
    """Token counts (from Gemini's usage metadata, as the event stores it) and the answering model."""
    found: dict[str, Any] = {}
    usage = usage or {}
    if usage.get("prompt_token_count"):  # a count of 0 is left out, as the timeline leaves it
        found[INPUT_TOKENS] = usage["prompt_token_count"]
    if usage.get("candidates_token_count"):
        found[OUTPUT_TOKENS] = usage["candidates_token_count"]
    if response_model:
        found[RESPONSE_MODEL] = response_model
    return found


def tool_attributes(tool_name: str, call_id: Optional[str]) -> dict[str, Any]:
    found: dict[str, Any] = {TOOL_NAME: tool_name}
    if call_id:
        found[TOOL_CALL_ID] = call_id
    return found


def tool_result_error(response: Any) -> Optional[str]:
    """error.type for a tool's result: ADK's convention is that a result with an ``error``
    entry reports a failed call."""
    if isinstance(response, Mapping) and response.get("error") is not None:
        return TOOL_ERROR
    return None


def is_failure_record(error_code: Optional[str], has_content: bool, model_version: Optional[str]) -> bool:
    """The event that records an exception ending an invocation (runtime.events.error_events): an
    error with no content that no model sent (a model's own error answer names its model)."""
    return bool(error_code) and not has_content and not model_version


def event_attributes(event_id: str, version: int, digest: Optional[str]) -> dict[str, Any]:
    found: dict[str, Any] = {EVENT_ID: event_id, LOG_VERSION: version}
    if digest:
        found[EVENT_DIGEST] = digest
    return found
