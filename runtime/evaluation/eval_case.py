"""An eval case: a conversation (what the user said each turn, the tools the agent should call, the answer
it should give), in the file format of google-adk 2.13's `.evalset.json`."""

from __future__ import annotations

from typing import Any, Optional, Union

import pydantic
from google.genai import types as genai_types
from pydantic import Field, model_validator
from typing_extensions import TypeAlias

from .app_details import AppDetails
from .common import EvalBaseModel
from .conversation_scenarios import ConversationScenario
from .eval_rubrics import Rubric


class IntermediateData(EvalBaseModel):
    """The older shape of a turn's steps: the tool calls and responses, in order."""

    tool_uses: list[genai_types.FunctionCall] = []
    tool_responses: list[genai_types.FunctionResponse] = []
    intermediate_responses: list[tuple[str, list[genai_types.Part]]] = []


class InvocationEvent(EvalBaseModel):
    """One event of a turn, as much of it as evaluation reads."""

    model_config = pydantic.ConfigDict(extra="ignore")

    author: str
    content: Optional[genai_types.Content] = None
    grounding_metadata: Optional[genai_types.GroundingMetadata] = None
    usage_metadata: Optional[genai_types.GenerateContentResponseUsageMetadata] = None
    model_version: Optional[str] = None


class InvocationEvents(EvalBaseModel):
    invocation_events: list[InvocationEvent] = Field(default_factory=list)


IntermediateDataType: TypeAlias = Union[IntermediateData, InvocationEvents]


class Invocation(EvalBaseModel):
    """One turn: the user's content, the steps taken, the final response."""

    invocation_id: str = ""
    user_content: genai_types.Content
    final_response: Optional[genai_types.Content] = None
    intermediate_data: Optional[IntermediateDataType] = None
    creation_timestamp: float = 0.0
    duration: Optional[float] = None
    model_duration: Optional[float] = None
    tool_duration: Optional[float] = None
    rubrics: Optional[list[Rubric]] = None  # read by the rubric-based metrics
    app_details: Optional[AppDetails] = None  # the agents' instructions and tools, for a judge


SessionState: TypeAlias = dict[str, Any]


class SessionInput(EvalBaseModel):
    """How the case's session starts."""

    model_config = pydantic.ConfigDict(extra="allow")

    app_name: str
    user_id: str
    session_id: Optional[str] = None
    state: SessionState = Field(default_factory=dict)


StaticConversation: TypeAlias = list[Invocation]


class EvalCase(EvalBaseModel):
    """A case: a static `conversation`, or a `conversation_scenario` for a user simulator (exactly one).

    Extra keys are kept (google-adk allows them too): a case taken from the log carries `chronicle_source`,
    the session, turns and chain digest it was taken from."""

    model_config = pydantic.ConfigDict(extra="allow")

    eval_id: str
    conversation: Optional[StaticConversation] = None
    conversation_scenario: Optional[ConversationScenario] = None
    session_input: Optional[SessionInput] = None
    creation_timestamp: float = 0.0
    rubrics: Optional[list[Rubric]] = None  # for every turn of the case
    final_session_state: Optional[SessionState] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _conversation_xor_scenario(self) -> "EvalCase":
        if (self.conversation is None) == (self.conversation_scenario is None):
            raise ValueError("Exactly one of conversation and conversation_scenario must be provided in an EvalCase.")
        return self


def get_all_tool_calls(intermediate_data: Optional[IntermediateDataType]) -> list[genai_types.FunctionCall]:
    """The turn's tool calls, in order, from either shape of intermediate data."""
    if not intermediate_data:
        return []
    if isinstance(intermediate_data, IntermediateData):
        return list(intermediate_data.tool_uses)
    return [
        part.function_call
        for event in intermediate_data.invocation_events
        if event.content and event.content.parts
        for part in event.content.parts
        if part.function_call
    ]


def get_all_usage_metadata(invocation: Invocation) -> list[genai_types.GenerateContentResponseUsageMetadata]:
    """The usage every model call of the turn reported."""
    if not isinstance(invocation.intermediate_data, InvocationEvents):
        return []
    return [e.usage_metadata for e in invocation.intermediate_data.invocation_events if e.usage_metadata is not None]


def is_model_call(event: InvocationEvent) -> bool:
    """Whether an invocation event came from a model call (it reports usage or a model version)."""
    return event.usage_metadata is not None or event.model_version is not None
