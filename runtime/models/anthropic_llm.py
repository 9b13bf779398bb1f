"""AnthropicLlm: Claude through Anthropic's own SDK (the optional extra `chronicle[anthropic]`),
at google-adk 2.13's path `models.anthropic_llm`.

The conversation goes as Anthropic messages: a model turn is an assistant message whose calls are
`tool_use` blocks, a tool's result a `tool_result` block in a user message. The SDK reads
ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL); `client=` takes a configured AsyncAnthropic instead.
`Claude`, ADK's class for Claude served from Vertex AI, refuses at use: Chronicle does not call
Google Cloud (ClaudeOnVertexUnavailableError)."""

from __future__ import annotations

from functools import cached_property
from typing import Any, AsyncGenerator, Optional

from google.genai import types
from pydantic import Field

from domain.errors import ChronicleError
from runtime.cloud_services import CloudServiceUnavailableError

from . import provider_request as common
from .base_llm import BaseLlm
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from .streaming import StreamingAggregator

_FINISH = {
    "end_turn": types.FinishReason.STOP,
    "tool_use": types.FinishReason.STOP,
    "stop_sequence": types.FinishReason.STOP,
    "pause_turn": types.FinishReason.STOP,
    "max_tokens": types.FinishReason.MAX_TOKENS,
    "refusal": types.FinishReason.SAFETY,
}


class AnthropicNotInstalledError(ChronicleError, ImportError):
    """AnthropicLlm needs the optional `anthropic` package."""


class ClaudeOnVertexUnavailableError(CloudServiceUnavailableError):
    """ADK's `Claude` calls Claude on Google Cloud's Vertex AI, which Chronicle does not call."""


def import_anthropic() -> Any:
    try:
        import anthropic
    except ImportError:
        raise AnthropicNotInstalledError(
            "AnthropicLlm needs the anthropic package: pip install 'chronicle[anthropic]' (or pip install anthropic)."
        ) from None
    return anthropic


class AnthropicLlm(BaseLlm):
    model: str = "claude-sonnet-4-20250514"
    max_tokens: int = 8192
    """Used when the request's config sets no max_output_tokens (Anthropic requires a limit)."""
    client: Optional[Any] = Field(default=None, exclude=True)
    """A configured `anthropic.AsyncAnthropic`; by default one from the environment."""

    @cached_property
    def _client(self) -> Any:
        return self.client if self.client is not None else import_anthropic().AsyncAnthropic()

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        arguments = self._arguments(llm_request)
        if not stream:
            yield response_from_message(await self._client.messages.create(**arguments))
            return
        aggregator = StreamingAggregator()
        async with self._client.messages.stream(**arguments) as events:
            async for event in events:
                if event.type == "content_block_delta" and event.delta.type == "text_delta" and event.delta.text:
                    partial = LlmResponse(content=types.Content(role="model", parts=[types.Part(text=event.delta.text)]),
                                          partial=True)
                    aggregator.add(partial)
                    yield partial
            message = await events.get_final_message()
        # The SDK assembled the whole message (tool inputs included); its text was streamed already.
        whole = response_from_message(message)
        calls = [p for p in (whole.content.parts if whole.content else []) if p.function_call]
        aggregator.add(whole.model_copy(update={
            "content": types.Content(role="model", parts=calls) if calls else None, "partial": True}))
        yield aggregator.close()

    def _arguments(self, request: LlmRequest) -> dict[str, Any]:
        config = request.config
        arguments: dict[str, Any] = {
            "model": request.model or self.model,
            "messages": anthropic_messages(request),
            "max_tokens": (config.max_output_tokens if config and config.max_output_tokens else self.max_tokens),
        }
        system = common.system_text(request)
        if system:
            arguments["system"] = system
        tools = [{"name": d.name, "description": d.description or "", "input_schema": common.parameters_schema(d)}
                 for d in common.function_declarations(request)]
        if tools:
            arguments["tools"] = tools
            arguments["tool_choice"] = {"type": "auto"}
        if config is not None:
            for ours, theirs in (("temperature", "temperature"), ("top_p", "top_p"), ("top_k", "top_k"),
                                 ("stop_sequences", "stop_sequences")):
                value = getattr(config, ours)
                if value:
                    arguments[theirs] = int(value) if theirs == "top_k" else value
        return arguments


class Claude(AnthropicLlm):
    """ADK's class for Claude served from Vertex AI; refuses at use (see the module's note)."""

    model: str = "claude-3-5-sonnet-v2@20241022"

    @cached_property
    def _client(self) -> Any:
        raise ClaudeOnVertexUnavailableError(
            f"Claude(model={self.model!r}) calls Claude on Google Cloud's Vertex AI, which Chronicle does "
            "not call. Use AnthropicLlm(model=...) with ANTHROPIC_API_KEY for Anthropic's API, or "
            "LiteLlm(model='vertex_ai/<model>') to reach Vertex AI through LiteLLM."
        )


def anthropic_messages(request: LlmRequest) -> list[dict[str, Any]]:
    """The request's contents as Anthropic messages; a turn left without blocks (thoughts only) is
    dropped, since Anthropic refuses an empty message."""
    messages: list[dict[str, Any]] = []
    for content in request.contents:
        blocks: list[dict[str, Any]] = []
        for part in content.parts or []:
            if part.function_response is not None:
                blocks.append({"type": "tool_result", "tool_use_id": part.function_response.id or "",
                               "content": common.result_text(part.function_response)})
            elif part.function_call is not None:
                blocks.append({"type": "tool_use", "id": part.function_call.id or "",
                               "name": part.function_call.name, "input": part.function_call.args or {}})
            elif part.text and not part.thought:
                blocks.append({"type": "text", "text": part.text})
        if blocks:
            messages.append({"role": "assistant" if content.role == "model" else "user", "content": blocks})
    return messages


def response_from_message(message: Any) -> LlmResponse:
    """An Anthropic message as a model turn (text and tool_use blocks, usage, stop reason)."""
    parts: list[types.Part] = []
    for block in message.content or []:
        if block.type == "text" and block.text:
            parts.append(types.Part(text=block.text))
        elif block.type == "tool_use":
            parts.append(types.Part(function_call=types.FunctionCall(
                id=block.id, name=block.name, args=common.call_arguments(block.input, block.name))))
    finish = common.finish_reason(message.stop_reason, _FINISH)
    usage = common.usage(getattr(message.usage, "input_tokens", None), getattr(message.usage, "output_tokens", None))
    if not parts and finish not in (None, types.FinishReason.STOP):
        return LlmResponse(error_code=finish.name, error_message=f"The model stopped without an answer ({finish.name}).",
                           finish_reason=finish, usage_metadata=usage)
    return LlmResponse(content=types.Content(role="model", parts=parts) if parts else None,
                       finish_reason=finish, usage_metadata=usage, model_version=getattr(message, "model", None))
