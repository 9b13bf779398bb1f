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
    # The rest of what google-adk 2.13's LlmResponse carries from Gemini, kept as the API sends it.
    avg_logprobs: Optional[float] = None
    logprobs_result: Optional[types.LogprobsResult] = None
    citation_metadata: Optional[types.CitationMetadata] = None
    input_transcription: Optional[types.Transcription] = None
    output_transcription: Optional[types.Transcription] = None
    live_session_id: Optional[str] = None
    turn_complete_reason: Optional[types.TurnCompleteReason] = None
    interaction_status: Optional[types.InteractionStatus] = None
    interaction_id: Optional[str] = None
    environment_id: Optional[str] = None
    cache_metadata: Optional[dict[str, Any]] = None
    live_session_resumption_update: Optional[types.LiveServerSessionResumptionUpdate] = None
    go_away: Optional[types.LiveServerGoAway] = None
    voice_activity: Optional[types.VoiceActivity] = None

    def event_fields(self) -> dict[str, Any]:
        """The fields an `Event` built from this response carries, beyond the ones the agent sets
        itself, in the Event's stored form (google-genai objects the Event keeps as JSON are dumped)."""
        out: dict[str, Any] = {}
        for name in _EVENT_FIELDS:
            value = getattr(self, name)
            if value is None:
                continue
            if name in _EVENT_JSON_FIELDS and isinstance(value, BaseModel):
                value = value.model_dump(mode="json", exclude_none=True)
            elif name in _EVENT_JSON_FIELDS and hasattr(value, "value"):
                value = value.value  # an enum, stored by its name
            out[name] = value
        return out

    @classmethod
    def create(cls, generate_content_response: types.GenerateContentResponse) -> LlmResponse:
        """Turns an SDK response into a model turn, reporting a block or an empty answer as an error."""
        created = cls._from_response(generate_content_response)
        created.model_version = generate_content_response.model_version
        if generate_content_response.candidates:
            candidate = generate_content_response.candidates[0]
            created.avg_logprobs = candidate.avg_logprobs
            created.logprobs_result = candidate.logprobs_result
            created.citation_metadata = candidate.citation_metadata
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


# Response fields an event copies as they are, and those of them the Event stores as plain JSON
# (domain.events.Event keeps them version-neutral across google-genai 2 and 3).
_EVENT_FIELDS = (
    "avg_logprobs", "logprobs_result", "citation_metadata", "input_transcription", "output_transcription",
    "live_session_id", "turn_complete_reason", "interaction_status", "interaction_id", "environment_id",
    "cache_metadata", "live_session_resumption_update", "go_away", "voice_activity",
)
_EVENT_JSON_FIELDS = frozenset({
    "logprobs_result", "turn_complete_reason", "interaction_status", "cache_metadata",
    "live_session_resumption_update", "go_away", "voice_activity",
})


def _name(reason: Any) -> str:
    return getattr(reason, "name", None) or str(reason)
