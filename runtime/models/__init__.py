"""The model layer: requests, responses, the BaseLlm seam, Gemini and a scripted model."""

from .base_llm import BaseLlm
from .google_llm import Gemini, ModelConnectionError
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from .registry import LLMRegistry, UnknownModelError
from .scripted import ScriptedLlm, ScriptExhaustedError
from .streaming import StreamingAggregator

LLMRegistry.register(Gemini)

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
