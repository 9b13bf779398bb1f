"""The seam between the runtime and a model: every model is a BaseLlm."""

from __future__ import annotations

from abc import abstractmethod
from typing import AsyncGenerator

from pydantic import BaseModel, ConfigDict

from .llm_request import LlmRequest
from .llm_response import LlmResponse


class BaseLlm(BaseModel):
    """A model by name. Subclasses answer a request with one response, or with partial chunks
    followed by one aggregated final response when `stream=True`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: str

    @classmethod
    def supported_models(cls) -> list[str]:
        """Regexes of the model names this class serves (see `LLMRegistry`)."""
        return []

    @abstractmethod
    def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Yields the model's answer to `llm_request`. Implement as an `async def` generator."""
        raise NotImplementedError
