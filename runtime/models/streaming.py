"""Folds the partial responses of a stream into the one final response the runtime records."""

from __future__ import annotations

from typing import Optional

from google.genai import types

from .llm_response import LlmResponse


class StreamingAggregator:
    """Collects partial responses in order. Adjacent text parts merge into one part (thought text
    and answer text stay separate parts); function calls and other parts are kept as they came."""

    def __init__(self) -> None:
        self._parts: list[types.Part] = []
        self._role: Optional[str] = None
        self._finish_reason: Optional[types.FinishReason] = None
        self._usage: Optional[types.GenerateContentResponseUsageMetadata] = None
        self._grounding: Optional[types.GroundingMetadata] = None
        self._citations: Optional[types.CitationMetadata] = None
        self._error: Optional[LlmResponse] = None
        self._model_version: Optional[str] = None

    def add(self, response: LlmResponse) -> None:
        if response.content is not None:
            self._role = response.content.role or self._role
            for part in response.content.parts or []:
                self._add_part(part)
        # The last chunk carries the finish reason and the usage of the whole turn.
        self._finish_reason = response.finish_reason or self._finish_reason
        self._usage = response.usage_metadata or self._usage
        self._grounding = response.grounding_metadata or self._grounding
        self._citations = response.citation_metadata or self._citations  # as google-adk 2.13 keeps them
        self._model_version = response.model_version or self._model_version
        if response.error_code:
            self._error = response

    def _add_part(self, part: types.Part) -> None:
        last = self._parts[-1] if self._parts else None
        if (
            part.text is not None
            and last is not None
            and last.text is not None
            and bool(last.thought) == bool(part.thought)
        ):
            # Merge into a copy: the partial responses already yielded keep their own parts.
            self._parts[-1] = last.model_copy(
                update={
                    "text": last.text + part.text,
                    "thought_signature": last.thought_signature or part.thought_signature,
                }
            )
        else:
            self._parts.append(part)

    def close(self) -> LlmResponse:
        """The aggregated, non-partial, turn-complete response."""
        parts = [p for p in self._parts if not _is_empty_text(p)]
        if not parts and self._error is not None:
            final = self._error.model_copy(update={"partial": False, "turn_complete": True})
            return final
        content = types.Content(role=self._role or "model", parts=parts) if parts else None
        error_code = error_message = None
        if content is None and self._finish_reason not in (None, types.FinishReason.STOP):
            error_code = self._finish_reason.name
            error_message = f"The model stopped without an answer ({error_code})."
        return LlmResponse(
            content=content,
            partial=False,
            turn_complete=True,
            finish_reason=self._finish_reason,
            usage_metadata=self._usage,
            grounding_metadata=self._grounding,
            citation_metadata=self._citations,
            error_code=error_code,
            error_message=error_message,
            model_version=self._model_version,
        )


def _is_empty_text(part: types.Part) -> bool:
    # Streams often end with an empty text chunk; it is not worth a part. Keep one that signs a thought.
    return part.text == "" and part.thought_signature is None and not part.thought
