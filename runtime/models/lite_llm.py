"""LiteLlm: models of OpenAI, Anthropic, Ollama, Groq, Mistral... through the `litellm` package
(the optional extra `chronicle[litellm]`), at google-adk 2.13's path `models.lite_llm`.

LiteLLM speaks each provider's protocol and reads its credentials from the environment, so one
class serves them all; the conversation goes as OpenAI chat messages (Chronicle's calls and
results as `tool_calls` and `tool` messages), and streaming yields partial text as it comes."""

from __future__ import annotations

import json
from typing import Any, AsyncGenerator, Optional

from google.genai import types
from pydantic import PrivateAttr

from domain.errors import ChronicleError

from . import provider_request as common
from .base_llm import BaseLlm
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from .streaming import StreamingAggregator

# Arguments the model manages itself; a caller's own would be overwritten.
_MANAGED = ("messages", "tools", "stream", "llm_client", "model")

_FINISH = {
    "stop": types.FinishReason.STOP,
    "tool_calls": types.FinishReason.STOP,
    "function_call": types.FinishReason.STOP,
    "length": types.FinishReason.MAX_TOKENS,
    "content_filter": types.FinishReason.SAFETY,
}


class LiteLlmNotInstalledError(ChronicleError, ImportError):
    """LiteLlm needs the optional `litellm` package."""


def import_litellm() -> Any:
    try:
        import litellm
    except ImportError:
        raise LiteLlmNotInstalledError(
            "LiteLlm needs the litellm package: pip install 'chronicle[litellm]' (or pip install litellm)."
        ) from None
    return litellm


class LiteLlm(BaseLlm):
    """`LiteLlm(model="openai/gpt-4o", api_base=..., api_key=..., temperature=...)`: every keyword
    other than `model` goes to `litellm.acompletion` as it is, as in google-adk."""

    _additional_args: dict[str, Any] = PrivateAttr(default_factory=dict)

    def __init__(self, model: str, **kwargs: Any) -> None:
        super().__init__(model=model)
        self._additional_args = {k: v for k, v in kwargs.items() if k not in _MANAGED}

    @classmethod
    def supported_models(cls) -> list[str]:
        # The common providers; the registry also asks LiteLLM about any other "provider/model".
        providers = ["openai", "azure", "azure_ai", "groq", "anthropic", "bedrock", "ollama", "ollama_chat",
                     "together_ai", "vertex_ai", "mistral", "deepseek", "fireworks_ai", "cohere",
                     "databricks", "openrouter", "xai", "huggingface", "lm_studio"]
        return [rf"{p}/.*" for p in providers]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        litellm = import_litellm()
        arguments: dict[str, Any] = {
            **_config_arguments(llm_request.config),
            **self._additional_args,
            "model": llm_request.model or self.model,
            "messages": chat_messages(llm_request),
        }
        tools = [
            {"type": "function", "function": {"name": d.name, "description": d.description or "",
                                              "parameters": common.parameters_schema(d)}}
            for d in common.function_declarations(llm_request)
        ]
        if tools:
            arguments["tools"] = tools
        if not stream:
            yield response_from_choice(await litellm.acompletion(**arguments))
            return
        aggregator = StreamingAggregator()
        calls: dict[int, dict[str, str]] = {}  # streamed tool calls by index: id, name, arguments so far
        finish: Optional[str] = None
        usage = None
        async for chunk in await litellm.acompletion(**arguments, stream=True,
                                                     stream_options={"include_usage": True}):
            usage = getattr(chunk, "usage", None) or usage
            if not chunk.choices:
                continue
            choice = chunk.choices[0]
            finish = choice.finish_reason or finish
            delta = choice.delta
            for call in getattr(delta, "tool_calls", None) or []:
                so_far = calls.setdefault(call.index or 0, {"id": "", "name": "", "arguments": ""})
                so_far["id"] = call.id or so_far["id"]
                if call.function is not None:
                    so_far["name"] += call.function.name or ""
                    so_far["arguments"] += call.function.arguments or ""
            if getattr(delta, "content", None):
                partial = LlmResponse(content=types.Content(role="model", parts=[types.Part(text=delta.content)]),
                                      partial=True)
                aggregator.add(partial)
                yield partial
        parts = [_call_part(c["id"], c["name"], c["arguments"]) for _, c in sorted(calls.items())]
        aggregator.add(LlmResponse(
            content=types.Content(role="model", parts=parts) if parts else None,
            finish_reason=common.finish_reason(finish, _FINISH),
            usage_metadata=_usage(usage),
            partial=True,
        ))
        yield aggregator.close()


def chat_messages(request: LlmRequest) -> list[dict[str, Any]]:
    """The request as OpenAI chat messages: the system text first, a model turn as an assistant
    message (its calls as tool_calls), each tool result as a `tool` message."""
    messages: list[dict[str, Any]] = []
    system = common.system_text(request)
    if system:
        messages.append({"role": "system", "content": system})
    for content in request.contents:
        texts, calls = [], []
        for part in content.parts or []:
            if part.function_response is not None:
                messages.append({"role": "tool", "tool_call_id": part.function_response.id or "",
                                 "content": common.result_text(part.function_response)})
            elif part.function_call is not None:
                calls.append({"type": "function", "id": part.function_call.id or "",
                              "function": {"name": part.function_call.name,
                                           "arguments": _json(part.function_call.args or {})}})
            elif part.text and not part.thought:
                texts.append(part.text)
        if content.role == "model" and (texts or calls):
            message: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) or None}
            if calls:
                message["tool_calls"] = calls
            messages.append(message)
        elif texts:
            messages.append({"role": "user", "content": "\n".join(texts)})
    return messages


def response_from_choice(response: Any) -> LlmResponse:
    """A chat completion as a model turn (text and tool calls, usage, finish reason)."""
    choice = response.choices[0]
    message = choice.message
    parts = [types.Part(text=message.content)] if message.content else []
    parts += [_call_part(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]
    finish = common.finish_reason(choice.finish_reason, _FINISH)
    if not parts and finish not in (None, types.FinishReason.STOP):
        return LlmResponse(error_code=finish.name, error_message=f"The model stopped without an answer ({finish.name}).",
                           finish_reason=finish, usage_metadata=_usage(getattr(response, "usage", None)))
    return LlmResponse(
        content=types.Content(role="model", parts=parts) if parts else None,
        finish_reason=finish,
        usage_metadata=_usage(getattr(response, "usage", None)),
        model_version=getattr(response, "model", None),
    )


def _call_part(call_id: Optional[str], name: str, arguments: Any) -> types.Part:
    return types.Part(function_call=types.FunctionCall(id=call_id or None, name=name,
                                                       args=common.call_arguments(arguments, name)))


def _usage(usage: Any) -> Optional[types.GenerateContentResponseUsageMetadata]:
    if usage is None:
        return None
    return common.usage(getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None))


def _config_arguments(config: Optional[types.GenerateContentConfig]) -> dict[str, Any]:
    """The sampling settings of a GenerateContentConfig in OpenAI's names."""
    if config is None:
        return {}
    pairs = {"temperature": config.temperature, "top_p": config.top_p, "max_tokens": config.max_output_tokens,
             "stop": config.stop_sequences or None, "seed": config.seed,
             "presence_penalty": config.presence_penalty, "frequency_penalty": config.frequency_penalty}
    if config.response_schema is not None or config.response_json_schema is not None:
        pairs["response_format"] = {"type": "json_object"}
    return {k: v for k, v in pairs.items() if v is not None}


def _json(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)
