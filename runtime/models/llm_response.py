"""What a model answers: one turn (or, when streaming, one chunk of a turn)."""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class LlmResponse(BaseModel):
    """A model turn. Its fields are the model-facing fields of `Event`, with the same names, so the
    runtime builds an event with `Event(author=..., **response.model_dump(exclude_none=True))`."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        arbitrary_types_allowed=True,
    )

    content: Optional[types.Content] = None
    partial: Optional[bool] = None
    turn_complete: Optional[bool] = None
    interrupted: Optional[bool] = None
    finish_reason: Optional[types.FinishReason] = None
    usage_metadata: Optional[types.GenerateContentResponseUsageMetadata] = None
    grounding_metadata: Optional[types.GroundingMetadata] = None
    custom_metadata: Optional[dict[str, Any]] = None
    error_code: Optional[str] = None
    error_message: Optional[str] = None
    model_version: Optional[str] = None  # the model that answered, as the API names it

    @classmethod
    def create(cls, generate_content_response: types.GenerateContentResponse) -> LlmResponse:
        """Turns an SDK response into a model turn, reporting a block or an empty answer as an error."""
        created = cls._from_response(generate_content_response)
        created.model_version = generate_content_response.model_version
        return created

    @classmethod
    def _from_response(cls, response: types.GenerateContentResponse) -> LlmResponse:
        usage = response.usage_metadata
        if not response.candidates:
            feedback = response.prompt_feedback
            if feedback is not None and feedback.block_reason is not None:
                return cls(
                    error_code=_name(feedback.block_reason),
                    error_message=feedback.block_reason_message
                    or f"The prompt was blocked ({_name(feedback.block_reason)}).",
                    usage_metadata=usage,
                )
            return cls(
                error_code="UNKNOWN_ERROR",
                error_message="The model returned no candidates.",
                usage_metadata=usage,
            )

        candidate = response.candidates[0]
        has_content = bool(candidate.content and candidate.content.parts)
        if has_content or candidate.finish_reason in (None, types.FinishReason.STOP):
            return cls(
                content=candidate.content,
                finish_reason=candidate.finish_reason,
                usage_metadata=usage,
                grounding_metadata=candidate.grounding_metadata,
            )
        # Stopped for a reason other than finishing (safety, max tokens, ...) and said nothing.
        return cls(
            error_code=_name(candidate.finish_reason),
            error_message=candidate.finish_message
            or f"The model stopped without an answer ({_name(candidate.finish_reason)}).",
            finish_reason=candidate.finish_reason,
            usage_metadata=usage,
            grounding_metadata=candidate.grounding_metadata,
        )


def _name(reason: Any) -> str:
    return getattr(reason, "name", None) or str(reason)
