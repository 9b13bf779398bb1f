"""Gemini through the google-genai SDK."""

from __future__ import annotations

import os
from functools import cached_property
from typing import AsyncGenerator, Optional

from google import genai
from google.genai import types

from domain.errors import ChronicleError, InvalidArgumentError

from .base_llm import BaseLlm
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from .streaming import StreamingAggregator

# What the model sees when the conversation would otherwise not end with a user turn
# (Gemini refuses empty contents, and answers best when the last turn is the user's).
_START_PROMPT = "Handle the requests as specified in the System Instruction."
_CONTINUE_PROMPT = (
    "Continue processing previous requests as instructed. "
    "Exit or provide a summary if no more outputs are needed."
)


class ModelConnectionError(ChronicleError, ConnectionError):
    """The model endpoint could not be reached (no HTTP answer at all)."""


class Gemini(BaseLlm):
    """Google's Gemini models. Without `api_key` the SDK reads GOOGLE_API_KEY or GEMINI_API_KEY;
    `base_url` points the SDK elsewhere (a proxy, or the test server)."""

    model: str = "gemini-2.5-flash"
    api_key: Optional[str] = None
    base_url: Optional[str] = None
    # None: one attempt, errors surface at once. Give HttpRetryOptions to retry 429/5xx.
    retry_options: Optional[types.HttpRetryOptions] = None
    timeout_ms: Optional[int] = None

    @classmethod
    def supported_models(cls) -> list[str]:
        return [
            r"gemini-.*",
            r"model-optimizer-.*",
            # Vertex AI endpoints and full model resource names.
            r"projects/.+/locations/.+/endpoints/.+",
            r"projects/.+/locations/.+/publishers/google/models/gemini.+",
        ]

    @cached_property
    def api_client(self) -> genai.Client:
        """One SDK client per Gemini instance, created on first use."""
        http_options = types.HttpOptions(
            base_url=self.base_url, retry_options=self.retry_options, timeout=self.timeout_ms
        )
        try:
            return genai.Client(api_key=self.api_key, http_options=http_options)
        except ValueError as exc:  # the SDK found no key and no Vertex AI project
            raise InvalidArgumentError(
                f"Gemini needs credentials: set GOOGLE_API_KEY (or GEMINI_API_KEY), pass "
                f"Gemini(api_key=...), or configure Vertex AI. The SDK said: {exc}"
            ) from exc

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        model = llm_request.model or self.model
        if llm_request.config.tools:  # a computer-use request needs Gemini's form (loaded only then)
            from runtime.tools.computer_use.computer_use_toolset import prepare_gemini_request

            await prepare_gemini_request(llm_request)
        contents = _with_trailing_user_turn(llm_request.contents)
        config = llm_request.config
        if config is not None and config.labels and not self.api_client.vertexai:
            config = config.model_copy(update={"labels": None})  # the Gemini API refuses labels
        models = self.api_client.aio.models
        try:
            if not stream:
                response = await models.generate_content(model=model, contents=contents, config=config)
                yield LlmResponse.create(response)
                return

            aggregator = StreamingAggregator()
            async for chunk in await models.generate_content_stream(
                model=model, contents=contents, config=config
            ):
                if chunk.prompt_feedback is not None and chunk.prompt_feedback.block_reason:
                    # The prompt itself was blocked: there is nothing more to stream.
                    yield LlmResponse.create(chunk).model_copy(update={"turn_complete": True})
                    return
                if not chunk.candidates:  # e.g. a trailing chunk with only the usage
                    aggregator.add(LlmResponse(usage_metadata=chunk.usage_metadata, partial=True))
                    continue
                partial = LlmResponse.create(chunk)
                partial.partial = True
                aggregator.add(partial)
                if partial.content is not None and partial.content.parts:
                    yield partial
            yield aggregator.close()
        except _TRANSPORT_ERRORS as exc:
            raise ModelConnectionError(
                f"Could not reach the Gemini API at {self._endpoint()} for model {model!r}: "
                f"{type(exc).__name__}: {exc or 'no details'}. Check the network, the base_url "
                "and any proxy settings."
            ) from exc

    def _endpoint(self) -> str:
        return self.base_url or os.environ.get("GOOGLE_GEMINI_BASE_URL") or (
            "https://generativelanguage.googleapis.com"
        )


def _with_trailing_user_turn(contents: list[types.Content]) -> list[types.Content]:
    """A copy of the conversation that ends with a user turn (the request is not changed)."""
    if not contents:
        return [types.Content(role="user", parts=[types.Part(text=_START_PROMPT)])]
    if contents[-1].role != "user":
        return [*contents, types.Content(role="user", parts=[types.Part(text=_CONTINUE_PROMPT)])]
    return contents


def _transport_errors() -> tuple[type[BaseException], ...]:
    """The HTTP libraries' "no response" errors, whichever of them the SDK is using here: httpx2 under
    google-genai 3, httpx under 2 (google-adk's environment, where `chronicle bench adk` runs), aiohttp
    when installed."""
    errors: list[type[BaseException]] = [OSError]
    for module_name, attr in (("httpx", "TransportError"), ("httpx2", "TransportError"),
                              ("aiohttp", "ClientConnectionError")):
        try:
            module = __import__(module_name)
        except ImportError:
            continue
        errors.append(getattr(module, attr))
    return tuple(errors)


_TRANSPORT_ERRORS = _transport_errors()
