"""The model request an LlmAgent sends, built in google-adk 2.13's order, so that a ported app
prompts the model exactly as it did on ADK (tests/test_adk_requests.py compares them)."""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types

from runtime.agents.single_turn import DELEGATED_MODES
from runtime.agents import llm_planning as planning, static_instruction as static
from runtime.agents.instructions import inject_session_state
from runtime.agents.model_input_context import insert_model_input_context
from runtime.contexts import ReadonlyContext
from runtime.invocation_context import InvocationContext
from runtime.models import LlmRequest
from runtime.models.filled import filled
from runtime.tools.base_tool import BaseTool, BaseToolset
from runtime.tools.set_model_response_tool import (
    INSTRUCTION as SET_MODEL_RESPONSE_INSTRUCTION,
    SetModelResponseTool,
    sends_schema_with_tools,
)
from runtime.tools.tool_context import ToolContext
from runtime.tools.transfer_to_agent_tool import transfer_instructions


async def build_request(agent: Any, ctx: InvocationContext) -> LlmRequest:
    """The model request, built in google-adk 2.13's order (its request processors'), so the
    model is prompted exactly as on ADK: config and output schema; the global, static and
    dynamic instructions; identity; contents; planner and code executor; the
    set_model_response tool (an output schema with tools); transfer; then the agent's tools."""
    llm = agent.canonical_model
    config = (
        agent.generate_content_config.model_copy(deep=True)
        if agent.generate_content_config is not None
        else filled(types.GenerateContentConfig)
    )
    request = LlmRequest(model=llm.model, config=config)
    # a task-mode agent's output_schema shapes its finish_task call, not its answers (runtime.agents.task_mode)
    answer_schema = agent.output_schema if agent.mode != "task" else None
    schema_tool = answer_schema is not None and bool(agent.tools) and not sends_schema_with_tools(llm)
    if answer_schema is not None and not schema_tool:
        request.set_output_schema(agent.output_schema)

    readonly = ReadonlyContext(ctx)
    root = agent.root_agent
    if getattr(root, "global_instruction", None):  # the root is an LlmAgent with one
        text, bypass = await root.canonical_global_instruction(readonly)
        request.append_instructions([text if bypass else await inject_session_state(text, ctx)])
    if agent.static_instruction:
        request.append_instructions([static.static_text(agent.static_instruction)])
    dynamic: Optional[str] = None
    if agent.instruction:
        text, bypass = await agent.canonical_instruction(readonly)
        dynamic = text if bypass else await inject_session_state(text, ctx)
        if not agent.static_instruction:
            request.append_instructions([dynamic])
    if not ctx.single_turn:
        identity = f'You are an agent. Your internal name is "{agent.name}".'
        if agent.description:
            identity += f' The description about you is "{agent.description}".'
        request.append_instructions([identity])

    contents = ctx.llm_context.contents(
        ctx.session.events, agent_name=agent.name, branch=ctx.branch, include_contents=agent.include_contents
    )
    if planning.plans_itself(agent.planner) or agent.canonical_before_model_callbacks or ctx.plugin_manager.has("before_model_callback"):
        # Callbacks may edit the request in place; the folded context must not change with it.
        contents = [c.model_copy(deep=True) for c in contents]
    request.contents = list(contents)  # tools below may append to it (load_artifacts does)
    insert_model_input_context(request.contents, ctx.user_content, ctx.run_config.model_input_context)
    if agent.static_instruction and dynamic:
        static.insert_before_current_turn(request.contents, static.labelled(dynamic))
    planning.apply_to_request(agent.planner, agent.code_executor, readonly, request)

    if schema_tool:
        request.append_tools([SetModelResponseTool(agent.output_schema)])
        request.append_instructions([SET_MODEL_RESPONSE_INSTRUCTION])
    groups = await agent.tool_groups(readonly)
    targets = agent.transfer_targets()
    if targets:
        if agent.mode not in DELEGATED_MODES:  # as ADK: a delegated agent is not told of transfers
            request.append_instructions([transfer_instructions(agent, targets)])
        # Before the agent's own tools, as google-adk declares it: a tool of the user's with the
        # same name comes later and wins.
        groups.insert(0, (None, [agent.transfer_tool_for(targets)]))
    tool_context: Optional[ToolContext] = None
    for toolset, tools in groups:  # one by one, in order: a tool may read what an earlier one added
        edits_request = getattr(type(toolset), "process_llm_request", BaseToolset.process_llm_request)
        if edits_request is not BaseToolset.process_llm_request:  # a toolset's edits come before its tools'
            tool_context = tool_context or ToolContext(ctx)
            await toolset.process_llm_request(tool_context=tool_context, llm_request=request)
        for tool in tools:
            if type(tool).process_llm_request is BaseTool.process_llm_request:
                request.append_tools([tool])
            else:
                tool_context = tool_context or ToolContext(ctx)
                await tool.process_llm_request(tool_context=tool_context, llm_request=request)
    request.finalize_dynamic_instructions()
    return request

