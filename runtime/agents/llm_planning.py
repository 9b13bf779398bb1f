"""An LlmAgent's planner and code executor, applied to each model request and answer.

BuiltInPlanner sets the model's thinking_config; another planner adds its planning instruction
to each request (whose earlier thoughts are then left out) and rewrites each answer's parts.
BuiltInCodeExecutor gives the model its code-execution tool (runtime.planners, runtime.code_executors)."""

from __future__ import annotations

from typing import Optional

from runtime.code_executors import BaseCodeExecutor, BuiltInCodeExecutor
from runtime.contexts import CallbackContext, ReadonlyContext
from runtime.models import LlmRequest, LlmResponse
from runtime.planners import BasePlanner, BuiltInPlanner


def plans_itself(planner: Optional[BasePlanner]) -> bool:
    """A planner other than BuiltInPlanner: it writes a planning instruction into each request,
    whose earlier thoughts are then left out, and may rewrite each answer's parts."""
    return planner is not None and not isinstance(planner, BuiltInPlanner)


def apply_to_request(
    planner: Optional[BasePlanner], code_executor: Optional[BaseCodeExecutor], readonly: ReadonlyContext,
    request: LlmRequest,
) -> None:
    if isinstance(planner, BuiltInPlanner):
        planner.apply_thinking_config(request)
    elif planner is not None:
        planning = planner.build_planning_instruction(readonly, request)
        if planning:
            request.append_instructions([planning])
    if plans_itself(planner):
        for content in request.contents:
            for part in content.parts or []:
                part.thought = None
    if isinstance(code_executor, BuiltInCodeExecutor):
        code_executor.process_llm_request(request)


def apply_to_response(planner: Optional[BasePlanner], callback_context: CallbackContext, response: LlmResponse) -> None:
    """A planner other than BuiltInPlanner may rewrite the answer's parts; state it writes
    goes with the answer's event."""
    if not plans_itself(planner) or not (response.content and response.content.parts):
        return
    parts = planner.process_planning_response(callback_context, response.content.parts)
    if parts:
        response.content.parts = parts
