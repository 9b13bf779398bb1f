"""ADK-compatible event models: what agents yield and the log records."""

from __future__ import annotations

import time
import uuid
from typing import Annotated, Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, ValidatorFunctionWrapHandler, WrapValidator
from pydantic.alias_generators import to_camel

from domain.json_content import content_from_json

_MODEL_CONFIG = ConfigDict(
    alias_generator=to_camel,
    populate_by_name=True,
    extra="forbid",
    arbitrary_types_allowed=True,
    ser_json_bytes="base64",
    val_json_bytes="base64",
)


def _content_from_json(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    # Reading the log back is JSON in, and most contents are plain: skip genai's hooks.
    if info.mode == "json":
        content = content_from_json(value)
        if content is not None:
            return content
    return handler(value)


class EventCompaction(BaseModel):
    """A summary that stands in, in the LLM context, for the events it covers."""

    model_config = _MODEL_CONFIG
    start_timestamp: float
    end_timestamp: float
    compacted_content: types.Content
    event_ids: list[str] = Field(default_factory=list)


class EventActions(BaseModel):
    model_config = _MODEL_CONFIG

    skip_summarization: Optional[bool] = None
    state_delta: dict[str, Any] = Field(default_factory=dict)
    artifact_delta: dict[str, int] = Field(default_factory=dict)
    transfer_to_agent: Optional[str] = None
    escalate: Optional[bool] = None
    requested_auth_configs: dict[str, Any] = Field(default_factory=dict)
    requested_tool_confirmations: dict[str, Any] = Field(default_factory=dict)
    compaction: Optional[EventCompaction] = None
    end_of_agent: Optional[bool] = None
    agent_state: Optional[dict[str, Any]] = None
    rewind_before_invocation_id: Optional[str] = None


class Event(BaseModel):
    """One step of a conversation: a message, a model turn, a tool call or result."""

    model_config = _MODEL_CONFIG

    id: str = ""
    invocation_id: str = ""
    author: str
    content: Annotated[Optional[types.Content], WrapValidator(_content_from_json)] = None
    actions: EventActions = Field(default_factory=EventActions)
    partial: Optional[bool] = None
    turn_complete: Optional[bool] = None
    interrupted: Optional[bool] = None
    finish_reason: Optional[types.FinishReason] = None
    branch: Optional[str] = None
    timestamp: float = Field(default_factory=time.time)
    long_running_tool_ids: Optional[set[str]] = None
    error_code: Optional[str] = None
    error_message: Optional[str] = None
    usage_metadata: Optional[types.GenerateContentResponseUsageMetadata] = None
    custom_metadata: Optional[dict[str, Any]] = None
    grounding_metadata: Optional[types.GroundingMetadata] = None

    def model_post_init(self, __context: Any) -> None:
        if not self.id:
            self.id = Event.new_id()

    @staticmethod
    def new_id() -> str:
        return str(uuid.uuid4())

    def is_final_response(self) -> bool:
        """True when this event ends the agent's turn from the user's point of view."""
        if self.actions.skip_summarization or self.long_running_tool_ids:
            return True
        return (
            not self.get_function_calls()
            and not self.get_function_responses()
            and not self.partial
            and not self.has_trailing_code_execution_result()
        )

    def get_function_calls(self) -> list[types.FunctionCall]:
        if not self.content or not self.content.parts:
            return []
        return [p.function_call for p in self.content.parts if p.function_call]

    def get_function_responses(self) -> list[types.FunctionResponse]:
        if not self.content or not self.content.parts:
            return []
        return [p.function_response for p in self.content.parts if p.function_response]

    def has_trailing_code_execution_result(self) -> bool:
        if self.content and self.content.parts:
            return self.content.parts[-1].code_execution_result is not None
        return False

    def text(self) -> str:
        """The text parts joined, for printing timelines."""
        if not self.content or not self.content.parts:
            return ""
        return "".join(p.text for p in self.content.parts if p.text and not p.thought)

    def to_json_dict(self) -> dict[str, Any]:
        """The stored form: JSON-ready, snake_case, without unset fields."""
        return self.model_dump(mode="json", exclude_none=True)
