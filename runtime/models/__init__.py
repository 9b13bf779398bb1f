"""The model layer: requests, responses, the BaseLlm seam, Gemini and a scripted model."""

from .base_llm import BaseLlm
from .google_llm import Gemini, ModelConnectionError
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from .registry import LLMRegistry, UnknownModelError
from .scripted import ScriptedLlm, ScriptExhaustedError
from .streaming import StreamingAggregator

LLMRegistry.register(Gemini)


def __getattr__(name: str):
    # ADK's package exports of the optional models, loaded (with their package) on first use.
    if name == "LiteLlm":
        from .lite_llm import LiteLlm

        return LiteLlm
    if name in ("AnthropicLlm", "Claude"):
        from . import anthropic_llm

        return getattr(anthropic_llm, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "BaseLlm",
    "Gemini",
    "LLMRegistry",
    "LlmRequest",
    "LlmResponse",
    "ModelConnectionError",
    "ScriptExhaustedError",
    "ScriptedLlm",
    "StreamingAggregator",
    "UnknownModelError",
]
