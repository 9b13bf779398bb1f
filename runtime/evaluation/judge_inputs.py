"""A turn's steps, grounding and the agents' tools as JSON for a judge's prompt, in the shape and order
google-adk 2.13 writes them (so the judge reads the same text)."""

from __future__ import annotations

from typing import Any, Optional, Union

from google.genai import types as genai_types

from .app_details import AppDetails
from .common import EvalBaseModel
from .eval_case import IntermediateData, IntermediateDataType, InvocationEvents, get_all_tool_calls

_COMPACT = dict(indent=2, exclude_unset=True, exclude_defaults=True, exclude_none=True)


class _ToolDeclarations(EvalBaseModel):
    tool_declarations: dict[str, list[Any]]


class _ToolCallAndResponse(EvalBaseModel):
    step: int
    tool_call: genai_types.FunctionCall
    tool_response: Union[genai_types.FunctionResponse, str]


class _ToolCallsAndResponses(EvalBaseModel):
    tool_calls_and_response: list[_ToolCallAndResponse]


class _GroundingMetadataEntry(EvalBaseModel):
    step: int
    author: Optional[str] = None
    grounding_metadata: genai_types.GroundingMetadata


class _GroundingMetadataEntries(EvalBaseModel):
    grounding_metadata: list[_GroundingMetadataEntry]


def tool_responses(steps: Optional[IntermediateDataType]) -> list[genai_types.FunctionResponse]:
    if isinstance(steps, IntermediateData):
        return list(steps.tool_responses)
    if isinstance(steps, InvocationEvents):
        return [p.function_response for e in steps.invocation_events if e.content and e.content.parts
                for p in e.content.parts if p.function_response]
    return []


def tool_declarations_json(app_details: AppDetails) -> str:
    return _ToolDeclarations(tool_declarations=app_details.get_tools_by_agent_name()).model_dump_json(**_COMPACT)


def tool_calls_and_responses_json(steps: Optional[IntermediateDataType]) -> str:
    """Each call with the response of the same call id ("None" when there is none)."""
    responses = {r.id: r for r in tool_responses(steps)}
    calls = get_all_tool_calls(steps)
    if not calls:
        return "No intermediate steps were taken."
    return _ToolCallsAndResponses(tool_calls_and_response=[
        _ToolCallAndResponse(step=n, tool_call=call, tool_response=responses.get(call.id) or "None")
        for n, call in enumerate(calls)]).model_dump_json(**_COMPACT)


def grounding_metadata_json(steps: Optional[IntermediateDataType]) -> str:
    entries = [_GroundingMetadataEntry(step=n, author=e.author, grounding_metadata=e.grounding_metadata)
               for n, e in enumerate(steps.invocation_events if isinstance(steps, InvocationEvents) else [])
               if e.grounding_metadata]
    if not entries:
        return "No grounding metadata was provided."
    return _GroundingMetadataEntries(grounding_metadata=entries).model_dump_json(**_COMPACT)
