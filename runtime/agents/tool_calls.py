"""Running the function calls of a model turn: concurrently, with callbacks, merged into one event."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import uuid
from typing import TYPE_CHECKING, Any, AsyncGenerator, Optional

from google.genai import types

from domain.errors import ChronicleError
from domain.events import Event, EventActions
from runtime.agents.llm_context import CLIENT_FUNCTION_CALL_ID_PREFIX
from runtime.agents.node_path import agent_node_path
from runtime.callbacks import call_user
from runtime.models.filled import filled
from runtime.telemetry import live as telemetry
from runtime.tools import tool_events
from runtime.tools.base_tool import BaseTool
from runtime.tools.tool_confirmation import ToolConfirmation
from runtime.tools.tool_context import ToolContext

if TYPE_CHECKING:
    from runtime.agents.llm_agent import LlmAgent
    from runtime.invocation_context import InvocationContext

logger = logging.getLogger("chronicle.tools")


class ToolNotFoundError(ChronicleError, ValueError):
    """The model called a function the agent does not have (what the tool error callbacks are
    given; unless one answers, the model is told which tools it has)."""


# ADK's answers to a call that waits on a person, and to one a person rejected.
NEEDS_CONFIRMATION = {"error": "This tool call requires confirmation, please approve or reject."}
REJECTED = {"error": "This tool call is rejected."}
UNNAMED = "<unnamed>"  # a call the model made without a name


def new_function_call_id() -> str:
    return CLIENT_FUNCTION_CALL_ID_PREFIX + str(uuid.uuid4())


def with_client_function_call_ids(content: types.Content) -> types.Content:
    """`content` with an id for every function call (models other than Gemini may leave it out),
    the model's own objects untouched: the calls given one are copied with their arguments, and
    the content around them (a deep copy of everything cost more than the rest of the turn's
    events together)."""
    parts = []
    for part in content.parts or []:
        call = part.function_call
        if call is not None and not call.id:
            call = call.model_copy(update={"id": new_function_call_id(), "args": copy.deepcopy(call.args)})
            part = part.model_copy(update={"function_call": call})
        parts.append(part)
    return content.model_copy(update={"parts": parts})


def long_running_call_ids(calls: list[types.FunctionCall], tools: dict[str, Any]) -> Optional[set[str]]:
    ids = {c.id for c in calls if c.id and getattr(tools.get(c.name), "is_long_running", False)}
    return ids or None


async def run_function_calls(
    ctx: InvocationContext, agent: LlmAgent, call_event: Event, tools: dict[str, BaseTool]
) -> AsyncGenerator[Event, None]:
    """Runs the calls of `call_event` (concurrently when there are several) and yields one event
    holding every result, in call order (nothing when no call produced a result yet).

    If a call raises, as in ADK 2.13 the calls still running are cancelled (their tools' error
    callbacks are told, for cleanup), the results of the calls that had finished are yielded, so
    the log keeps what their side effects did, and then the error is raised."""
    async for event in _run_calls(ctx, agent, call_event.get_function_calls(), tools, {}):
        yield event


async def _run_calls(
    ctx: InvocationContext,
    agent: LlmAgent,
    calls: list[types.FunctionCall],
    tools: dict[str, BaseTool],
    confirmations: dict[str, ToolConfirmation],
) -> AsyncGenerator[Event, None]:
    if len(calls) == 1 and not _emits_events(calls, tools):
        results = [await _run_one(ctx, agent, calls[0], tools, confirmations.get(calls[0].id or ""))]
    else:
        tasks, emitted = tool_events.start(
            [_run_one(ctx, agent, call, tools, confirmations.get(call.id or "")) for call in calls]
        )
        gathered = asyncio.ensure_future(_gather_or_cancel(tasks))
        try:
            async for event in tool_events.relay(emitted, gathered):  # what the tools say as they run
                yield event
            results = await gathered
        except Exception:
            finished = [t.result() for t in tasks if t.done() and not t.cancelled() and t.exception() is None]
            kept = [e for e in finished if e is not None and _is_plain_result(e)]
            if kept:
                yield kept[0] if len(kept) == 1 else merge_function_response_events(kept)
            raise
        finally:
            if not gathered.done():
                gathered.cancel()
                await asyncio.gather(gathered, return_exceptions=True)
    events = [e for e in results if e is not None]
    if events:
        yield events[0] if len(events) == 1 else merge_function_response_events(events)


async def _gather_or_cancel(tasks: list[asyncio.Future]) -> list[Any]:
    """Every task's result; if one raises (or this is cancelled), the others are cancelled and
    awaited before the error propagates, so no tool keeps running after its invocation failed."""
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def _emits_events(calls: list[types.FunctionCall], tools: dict[str, BaseTool]) -> bool:
    """Whether a called tool makes events of its own as it runs (runtime.tools.tool_events)."""
    return any(getattr(tools.get(c.name or ""), "emits_events", False) for c in calls)


def _is_plain_result(event: Event) -> bool:
    """A tool's result with no instruction in it besides its state and artifact changes: a
    transfer, an escalation or a request to a person belongs to a step that failed, and is not kept."""
    actions = event.actions.model_copy(update={"state_delta": {}, "artifact_delta": {}, "skip_summarization": None})
    return bool(event.get_function_responses()) and actions == EventActions()


async def run_function_calls_as_completed(
    ctx: InvocationContext, agent: LlmAgent, call_event: Event, tools: dict[str, BaseTool]
) -> AsyncGenerator[Event, None]:
    """Runs the calls of `call_event` concurrently and yields each result event as soon as its
    tool returns (resumable apps commit each one on its own). If a tool raises, the others are
    cancelled and the error propagates."""
    tasks, emitted = tool_events.start([_run_one(ctx, agent, call, tools) for call in call_event.get_function_calls()])
    running = list(tasks)
    try:
        while running:
            some_done = asyncio.ensure_future(asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED))
            try:
                async for event in tool_events.relay(emitted, some_done):  # what the tools say as they run
                    yield event
            finally:
                if not some_done.done():
                    some_done.cancel()
            done, _ = await some_done
            for task in [t for t in running if t in done]:
                running.remove(task)
                event = task.result()
                if event is not None:
                    yield event
    finally:
        for task in tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def merge_function_response_events(events: list[Event]) -> Event:
    """One event with every result; the actions are merged (state and artifact deltas key by key
    in call order, flags if any call set them, the last transfer wins)."""
    parts: list[types.Part] = []
    actions = EventActions()
    for event in events:
        parts.extend(event.content.parts if event.content and event.content.parts else [])
        a = event.actions
        actions.state_delta.update(a.state_delta)
        actions.artifact_delta.update(a.artifact_delta)
        actions.requested_auth_configs.update(a.requested_auth_configs)
        actions.requested_tool_confirmations.update(a.requested_tool_confirmations)
        if a.skip_summarization:
            actions.skip_summarization = True
        if a.escalate:
            actions.escalate = True
        if a.transfer_to_agent:
            actions.transfer_to_agent = a.transfer_to_agent
    first = events[0]
    return Event(
        invocation_id=first.invocation_id,
        author=first.author,
        branch=first.branch,
        content=types.Content(role="user", parts=parts),
        actions=actions,
        timestamp=first.timestamp,
    )


async def run_answered_calls(
    ctx: InvocationContext,
    agent: LlmAgent,
    calls: list[types.FunctionCall],
    tools: dict[str, BaseTool],
    confirmations: dict[str, ToolConfirmation],
) -> AsyncGenerator[Event, None]:
    """Runs original calls again after a person answered for them (an approval or rejection in
    `confirmations`, or a credential): one event holding every result, as `run_function_calls`."""
    async for event in _run_calls(ctx, agent, calls, tools, confirmations):
        yield event


async def _confirmation_gate(tool: BaseTool, args: dict[str, Any], tool_context: ToolContext) -> Optional[dict]:
    """The answer to a call that must not run (yet), or None if it may run. The one place that
    decides, for every kind of tool: a rejected call never runs; a call whose tool requires
    confirmation asks for it instead of running."""
    confirmation = tool_context.tool_confirmation
    if confirmation is not None:
        return None if confirmation.confirmed else dict(REJECTED)
    if not await tool.check_require_confirmation(args, tool_context):
        return None
    tool_context.request_confirmation(
        hint=f"Please approve or reject the tool call {tool.name}() by responding with a FunctionResponse "
        "with an expected ToolConfirmation payload."
    )
    tool_context.actions.skip_summarization = True  # the pause is no result for the model to summarise
    return dict(NEEDS_CONFIRMATION)


async def _run_one(
    ctx: InvocationContext,
    agent: LlmAgent,
    call: types.FunctionCall,
    tools: dict[str, BaseTool],
    confirmation: Optional[ToolConfirmation] = None,
) -> Optional[Event]:
    span = telemetry.tool_started(ctx, call.name or UNNAMED, call.id)
    if span is None:
        return await _run_call(ctx, agent, call, tools, confirmation, None)
    try:
        event = await _run_call(ctx, agent, call, tools, confirmation, span)
    except BaseException as error:
        telemetry.tool_failed(ctx, span, error)
        raise
    telemetry.tool_answered(ctx, span, call.id, event)
    return event


async def _run_call(
    ctx: InvocationContext,
    agent: LlmAgent,
    call: types.FunctionCall,
    tools: dict[str, BaseTool],
    confirmation: Optional[ToolConfirmation],
    span: Any,
) -> Optional[Event]:
    plugins = ctx.plugin_manager
    tool_context = ToolContext(ctx, function_call_id=call.id, tool_confirmation=confirmation)
    args: dict[str, Any] = dict(call.args or {})

    tool = tools.get(call.name)
    not_found: Optional[ToolNotFoundError] = None
    if tool is None:
        not_found = ToolNotFoundError(
            f"The model called {call.name!r}, which agent {agent.name!r} does not have "
            f"(its tools: {', '.join(tools) or 'none'})."
        )
        tool = BaseTool(name=call.name or UNNAMED, description="Tool not found")

    # as google-adk 2.13, a delegated task's result is recorded directly, past the tool callbacks
    callbacks = not getattr(tool, "answers_as_user", False)
    response = await plugins.run_before_tool_callback(tool=tool, tool_args=args, tool_context=tool_context) if callbacks else None
    if response is None and callbacks:
        for callback in agent.canonical_before_tool_callbacks:
            response = await call_user(callback, tool=tool, args=args, tool_context=tool_context)
            if response is not None:
                break
    if not_found is not None:
        # A name the model made up is the model's mistake to correct (ADK 2.13): unless a callback
        # answers the call, the model is told which tools it has. No tool ran, so no after-callbacks.
        if response is None:
            response = await _on_tool_error(ctx, agent, tool, args, tool_context, not_found)
        if response is None:
            logger.warning("%s", not_found)
            response = tool_not_found_response(call.name, tools)
        return _response_event(ctx, agent, tool, call, response, tool_context)
    if response is None:
        try:
            response = await _confirmation_gate(tool, args, tool_context)
            if response is None:
                with telemetry.tool_running(span):
                    response = await tool.run_async(args=args, tool_context=tool_context)
                if response is tool_events.WAITING:  # it asked a person: no result yet, the agent stops
                    ctx.paused_agents.add(agent.name)
                    return None
        except asyncio.CancelledError as cancelled:
            await _notify_cancelled(ctx, agent, tool, args, tool_context, cancelled)
            raise
        except Exception as error:
            response = await _on_tool_error(ctx, agent, tool, args, tool_context, error)
            if response is None:
                raise

    altered = await plugins.run_after_tool_callback(
        tool=tool, tool_args=args, tool_context=tool_context, result=response
    ) if callbacks else None
    if altered is None and callbacks:
        for callback in agent.canonical_after_tool_callbacks:
            altered = await call_user(
                callback, tool=tool, args=args, tool_context=tool_context, tool_response=response
            )
            if altered is not None:
                break
    if altered is not None:
        response = altered

    if tool.is_long_running and not response:
        # The result comes later, from the client. A resumable app keeps what the tool wrote to
        # state in an event of its own (ADK, and a non-resumable app here, drop it).
        actions = tool_context.actions
        if ctx.is_resumable and (actions.state_delta or actions.artifact_delta or actions.requested_tool_confirmations):
            return Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch, actions=actions)
        return None
    return _response_event(ctx, agent, tool, call, response, tool_context)


def tool_not_found_response(name: Optional[str], tools: dict[str, BaseTool]) -> dict[str, str]:
    """What the model is told when it calls a tool the agent does not have (ADK 2.13's words)."""
    return {
        "error": (
            f"Invoking `{name}()` failed as no tool with that name is available. The tools you can call "
            f"are: {', '.join(tools) or 'none'}. You could retry, but it is IMPORTANT that you only call "
            "a tool from that list."
        )
    }


async def _on_tool_error(
    ctx: InvocationContext,
    agent: LlmAgent,
    tool: BaseTool,
    args: dict[str, Any],
    tool_context: ToolContext,
    error: Exception,
) -> Optional[Any]:
    response = await ctx.plugin_manager.run_on_tool_error_callback(
        tool=tool, tool_args=args, tool_context=tool_context, error=error
    )
    if response is None:
        for callback in agent.canonical_on_tool_error_callbacks:
            response = await call_user(callback, tool=tool, args=args, tool_context=tool_context, error=error)
            if response is not None:
                break
    return response


async def _notify_cancelled(
    ctx: InvocationContext,
    agent: LlmAgent,
    tool: BaseTool,
    args: dict[str, Any],
    tool_context: ToolContext,
    cancelled: asyncio.CancelledError,
) -> None:
    """Tells every tool error callback, plugins' then the agent's, that the call was cancelled, so
    what a before_tool_callback set up can be released (ADK 2.13). Cleanup only: a cancelled call
    is never recovered, so results are ignored, and a callback that fails is logged."""
    callbacks = [getattr(p, "on_tool_error_callback") for p in ctx.plugin_manager.plugins]
    for callback in callbacks:
        try:
            await callback(tool=tool, tool_args=args, tool_context=tool_context, error=cancelled)
        except (Exception, asyncio.CancelledError):  # noqa: BLE001 - the cancellation propagates regardless
            logger.warning("on_tool_error_callback failed while %r was cancelled.", tool.name, exc_info=True)
    for callback in agent.canonical_on_tool_error_callbacks:
        try:
            await call_user(callback, tool=tool, args=args, tool_context=tool_context, error=cancelled)
        except (Exception, asyncio.CancelledError):  # noqa: BLE001
            logger.warning("on_tool_error_callback failed while %r was cancelled.", tool.name, exc_info=True)


def _response_event(
    ctx: InvocationContext,
    agent: LlmAgent,
    tool: BaseTool,
    call: types.FunctionCall,
    response: Any,
    tool_context: ToolContext,
) -> Event:
    shown = response
    if not isinstance(response, dict):
        response = {"result": response}
    # A tool may move media out of its JSON answer into parts the model sees as such (a computer
    # use tool's screenshot); the hook has that tool's rule, this its one caller.
    media = getattr(tool, "function_response_parts", None)
    function_response = types.FunctionResponse(
        id=call.id, name=tool.name, response=response, scheduling=tool.response_scheduling,
        parts=media(response) if media is not None else None,
    )
    parts = [filled(types.Part, function_response=function_response)]
    text = _skipped_summary_text(tool, shown, response, tool_context)
    if text is not None:
        parts.append(filled(types.Part, text=text))
    event = Event(
        invocation_id=ctx.invocation_id,
        author=agent.name,
        branch=ctx.branch,
        content=filled(types.Content, role="user", parts=parts),
        actions=tool_context.actions,
    )
    if getattr(tool, "answers_as_user", False):  # as ADK records a delegated task's result (TaskAgentTool)
        event.author = "user"
        event.node_info.path = agent_node_path(agent.root_agent, agent.name)
    return event


def _skipped_summary_text(tool: BaseTool, shown: Any, response: dict, tool_context: ToolContext) -> Optional[str]:
    """An agent tool's answer as text beside its result when the model will not summarise it, so
    the answer is the turn's last word (and its output_key's value), as google-adk 2.13 adds it.
    Only for AgentTool: other tools skip summaries precisely so that nothing is shown."""
    from runtime.tools.agent_tool import AgentTool

    if not tool_context.actions.skip_summarization or not isinstance(tool, AgentTool) or "error" in response:
        return None
    if shown is None or shown == {"result": None} or shown == "":
        return None
    return shown if isinstance(shown, str) else json.dumps(shown, ensure_ascii=False, default=str)
