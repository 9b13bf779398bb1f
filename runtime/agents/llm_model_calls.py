"""An LlmAgent's model call: before-model callbacks (a stand-in answer ends it), the call itself in its
span, on-error and after-model callbacks, and each response turned into an event (function-call ids
given, long-running calls marked). A base of `LlmAgent`, which gives it `name`, `planner`, the model
and the callbacks."""

from __future__ import annotations

from typing import Any, AsyncGenerator, Optional

from domain.errors import InvalidArgumentError
from domain.events import Event, EventActions

from runtime.agents import llm_planning as planning
from runtime.agents.tool_calls import long_running_call_ids, with_client_function_call_ids
from runtime.callbacks import call_user
from runtime.contexts import CallbackContext
from runtime.invocation_context import InvocationContext
from runtime.models import LlmRequest, LlmResponse
from runtime.models import model_override
from runtime.telemetry import live as telemetry
from runtime.tools.agent_tool import with_propagated_grounding

ADK_AGENT_NAME_LABEL_KEY = "adk_agent_name"  # the label that names the calling agent (per-agent billing)


class ModelCalls:
    def _call_model(
        self, ctx: InvocationContext, request: LlmRequest, stream: bool
    ) -> AsyncGenerator[Event, None]:
        # Traced, the model call runs inside its span (runtime.telemetry); untraced, as it is.
        return telemetry.model_call(ctx, request.model, self._model_call_events(ctx, request, stream))

    async def _model_call_events(
        self, ctx: InvocationContext, request: LlmRequest, stream: bool
    ) -> AsyncGenerator[Event, None]:
        """Calls the model (or a before_model_callback's stand-in) and turns its responses into events.

        State written by model callbacks goes into the actions of the next non-partial event."""
        plugins = ctx.plugin_manager
        actions = EventActions()
        callback_context = CallbackContext(ctx, event_actions=actions)

        response = await plugins.run_before_model_callback(callback_context=callback_context, llm_request=request)
        if response is None:
            for callback in self.canonical_before_model_callbacks:
                response = await call_user(callback, callback_context=callback_context, llm_request=request)
                if response is not None:
                    break
        if response is not None:
            _check_response(self, response, "before_model_callback")
            event = self._model_event(ctx, request, response, actions)
            if event is not None:
                yield event
            return

        # As ADK: the agent's name as a label (per-agent billing), after the before-model callbacks.
        request.config.labels = request.config.labels or {}
        request.config.labels.setdefault(ADK_AGENT_NAME_LABEL_KEY, self.name)
        ctx.increment_llm_call_count()
        after_callbacks = self.canonical_after_model_callbacks
        run_after = bool(after_callbacks) or plugins.has("after_model_callback")
        # A stand-in registered for this invocation (conformance replay) answers in the model's place.
        model = model_override.model_for(ctx.invocation_id, self.name) or self.canonical_model
        responses = model.generate_content_async(request, stream=stream)
        try:
            while True:
                try:
                    response = await responses.__anext__()
                except StopAsyncIteration:
                    break
                except Exception as error:
                    response = await self._on_model_error(ctx, callback_context, request, error)
                    if response is None:
                        raise
                    _check_response(self, response, "on_model_error_callback")
                    event = self._model_event(ctx, request, response, actions)
                    if event is not None:
                        yield event
                    return
                if run_after:
                    altered = await plugins.run_after_model_callback(
                        callback_context=callback_context, llm_response=response
                    )
                    if altered is None:
                        for callback in after_callbacks:
                            altered = await call_user(callback, callback_context=callback_context, llm_response=response)
                            if altered is not None:
                                break
                    if altered is not None:
                        _check_response(self, altered, "after_model_callback")
                        response = altered
                response = with_propagated_grounding(ctx.session.state, request.tools_dict, response)
                if not response.partial:
                    planning.apply_to_response(self.planner, callback_context, response)
                if response.partial:
                    event = self._model_event(ctx, request, response, EventActions())
                else:
                    event = self._model_event(ctx, request, response, actions)
                    if event is not None:  # later callback writes belong to the next event
                        actions = EventActions()
                        callback_context = CallbackContext(ctx, event_actions=actions)
                if event is not None:
                    yield event
        finally:
            await responses.aclose()

    async def _on_model_error(
        self, ctx: InvocationContext, callback_context: CallbackContext, request: LlmRequest, error: Exception
    ) -> Optional[LlmResponse]:
        response = await ctx.plugin_manager.run_on_model_error_callback(
            callback_context=callback_context, llm_request=request, error=error
        )
        if response is None:
            for callback in self.canonical_on_model_error_callbacks:
                response = await call_user(callback, callback_context=callback_context, llm_request=request, error=error)
                if response is not None:
                    break
        return response

    def _model_event(
        self, ctx: InvocationContext, request: LlmRequest, response: LlmResponse, actions: EventActions
    ) -> Optional[Event]:
        if response.content is None and not response.error_code and not response.interrupted:
            return None  # nothing to show or store (e.g. a usage-only chunk)
        content = response.content
        event = Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            actions=actions,
            content=content,
            partial=response.partial,
            turn_complete=response.turn_complete,
            interrupted=response.interrupted,
            finish_reason=response.finish_reason,
            usage_metadata=response.usage_metadata,
            grounding_metadata=response.grounding_metadata,
            custom_metadata=dict(response.custom_metadata) if response.custom_metadata else None,
            error_code=response.error_code,
            error_message=response.error_message,
            model_version=response.model_version,
            **response.event_fields(),
        )
        if not event.partial and content is not None:
            calls = event.get_function_calls()
            if calls:
                if any(not c.id for c in calls):
                    event.content = with_client_function_call_ids(content)
                    calls = event.get_function_calls()
                event.long_running_tool_ids = long_running_call_ids(calls, request.tools_dict)
        return event



def _check_response(agent: Any, response: Any, where: str) -> None:
    if not isinstance(response, LlmResponse):
        raise InvalidArgumentError(
            f"The {where} of agent {agent.name!r} returned {type(response).__name__}; "
            "return an LlmResponse (or None to continue)."
        )
