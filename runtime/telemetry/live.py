"""Live spans: what the Runner, the agents, the model call and the tool calls report while they run.

Through ``opentelemetry-api`` only: nothing is exported until the application configures an SDK
(a ``TracerProvider`` with an exporter). Until then ``begin`` finds no provider and every hook
returns at its first line, so a turn costs one check per hook.

Spans are parented explicitly (each agent's span is kept on its copy of the invocation context)
rather than through OpenTelemetry's current context: agents are async generators, and a context
attached in one would leak through its ``yield`` into whoever drives it. A tool's own code does
run with its ``execute_tool`` span current, so spans it starts nest under it.

A span learns which logged event it produced when the Runner appends that event (``logged``):
the model call's span waits for its turn's event id, a tool call's span for an event holding its
call id's result (each ends then: the calls a turn makes run before the model call's generator
resumes, and a result is logged merged with its siblings'), an agent's span takes each event it
authors. The spans of a failure (the tool or
model call that raised, and the agents the error passed through) wait for the event that records
the failure (``runtime.events.error_events``) and point at it.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, AsyncGenerator, ContextManager, Optional

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import NoOpTracerProvider, ProxyTracerProvider, Span, Status, StatusCode

from domain.session_log import SessionLog
from runtime.events.error_events import error_code_of
from runtime.telemetry import semconv

if TYPE_CHECKING:
    from domain.events import Event
    from runtime.invocation_context import InvocationContext

TRACER_NAME = "chronicle"


def tracing_configured() -> bool:
    """Whether the application has set a real TracerProvider (an SDK), i.e. spans go somewhere."""
    return not isinstance(trace.get_tracer_provider(), (ProxyTracerProvider, NoOpTracerProvider))


class InvocationTrace:
    """The live spans of one invocation, and what each waits for."""

    def __init__(self, session_id: str, invocation_id: str):
        self.tracer = trace.get_tracer(TRACER_NAME)
        self.session_id = session_id
        self.invocation_id = invocation_id
        self.outer = otel_context.get_current()  # the caller's span, if any, is the root's parent
        self.agents: dict[str, Span] = {}  # open agent spans, by agent name
        self.models: dict[str, Span] = {}  # model-call spans, by the id of the event they wait for
        self.tools: dict[str, Span] = {}  # tool spans, by the call id whose result they wait for
        self.failed: dict[Span, Optional[str]] = {}  # spans of a failure -> their own error.type

    def start(self, name: str, parent: Optional[Span], operation: str, agent_name: str, **extra: Any) -> Span:
        attributes = semconv.base_attributes(operation, agent_name, self.session_id, self.invocation_id)
        attributes.update(extra)
        context = trace.set_span_in_context(parent) if parent is not None else self.outer
        return self.tracer.start_span(name, context=context, attributes=attributes)

    def logged(self, event: Event, version: int) -> None:
        attributes = semconv.event_attributes(
            event.id, version, SessionLog.recorded_digest(event.to_json_dict())
        )
        agent = self.agents.get(event.author)
        if agent is not None:
            agent.set_attributes(attributes)
        model = self.models.pop(event.id, None)
        if model is not None:  # the model call is over once its turn is logged (its tools run after)
            model.set_attributes(attributes)
            model.end()
        for response in event.get_function_responses():
            tool = self.tools.pop(response.id or "", None)
            if tool is not None:
                tool.set_attributes(attributes)
                tool.end()
        content = bool(event.content and event.content.parts)
        if semconv.is_failure_record(event.error_code, content, event.model_version):
            agents = set(self.agents.values())
            for span in self.failed:
                if span not in agents:  # an agent span points at the last event it authored
                    span.set_attributes(attributes)
                _fail(span, event.error_code)
                span.end()
            self.agents = {name: span for name, span in self.agents.items() if span not in self.failed}
            self.failed.clear()

    def fail(self, span: Span, error: Optional[BaseException]) -> None:
        self.failed[span] = error_code_of(error) if error is not None else None

    def close(self) -> None:
        """Ends whatever is still open when the invocation ends (a failure nobody recorded, a
        long-running call whose result comes in a later invocation)."""
        for span, error_type in self.failed.items():
            _fail(span, error_type)
            span.end()
        for span in (*self.tools.values(), *self.models.values()):
            if span.is_recording():
                span.end()
        self.failed.clear()
        self.tools.clear()
        self.models.clear()
        self.agents.clear()


def _fail(span: Span, error_type: Optional[str]) -> None:
    if error_type:
        span.set_attribute(semconv.ERROR_TYPE, error_type)
    span.set_status(Status(StatusCode.ERROR))


# -- the hooks -----------------------------------------------------------------------------------
# Each takes the invocation context and returns at once when the invocation is not traced.


def begin(ctx: InvocationContext) -> None:
    """The Runner starts an invocation: trace it if an SDK is configured."""
    if tracing_configured():
        ctx._shared.trace = InvocationTrace(ctx.session.id, ctx.invocation_id)


def end(ctx: InvocationContext) -> None:
    traced = ctx._shared.trace
    if traced is not None:
        ctx._shared.trace = None
        traced.close()


def logged(ctx: InvocationContext, event: Event) -> None:
    """The Runner appended ``event`` (the session's log is now at its version)."""
    traced = ctx._shared.trace
    if traced is not None:
        traced.logged(event, ctx.session.version)


def agent_started(ctx: InvocationContext) -> Optional[Span]:
    """An agent starts on its own copy ``ctx`` of the invocation context."""
    traced = ctx._shared.trace
    if traced is None:
        return None
    name = ctx.agent.name
    span = traced.start(f"{semconv.INVOKE_AGENT} {name}", ctx.trace_span, semconv.INVOKE_AGENT, name)
    traced.agents[name] = span
    ctx.trace_span = span
    return span


def agent_ended(ctx: InvocationContext, span: Optional[Span], error: Optional[BaseException] = None) -> None:
    if span is None:
        return
    traced = ctx._shared.trace
    if traced is not None and error is not None and isinstance(error, Exception):
        traced.fail(span, error)  # ends with the failure's record
        return
    if traced is not None and traced.agents.get(ctx.agent.name) is span:
        del traced.agents[ctx.agent.name]
    span.end()


def model_call(ctx: InvocationContext, model: Optional[str], events: AsyncGenerator[Event, None]) -> AsyncGenerator[Event, None]:
    """The events of one model call, inside its span when the invocation is traced (``events``
    itself when not: no extra generator on the hot path)."""
    if ctx._shared.trace is None:
        return events
    return _traced_model_call(ctx, model, events)


async def _traced_model_call(
    ctx: InvocationContext, model: Optional[str], events: AsyncGenerator[Event, None]
) -> AsyncGenerator[Event, None]:
    traced: InvocationTrace = ctx._shared.trace
    attributes = semconv.model_attributes(model)
    operation = attributes.pop(semconv.OPERATION)
    span = traced.start(semconv.model_span_name(model), ctx.trace_span, operation, ctx.agent.name, **attributes)
    failed = False
    try:
        async for event in events:
            if not event.partial:
                _answered(traced, span, event)
            yield event
    except Exception as error:
        failed = True
        traced.fail(span, error)  # ends with the failure's record
        raise
    finally:
        await events.aclose()
        if not failed and span.is_recording() and span not in traced.models.values():
            span.end()  # a model call that logged nothing (its turn ends the span otherwise)


def _answered(traced: InvocationTrace, span: Span, event: Event) -> None:
    """The model call produced ``event`` (not yet logged): its usage, and which event to wait for."""
    usage = event.usage_metadata.model_dump(exclude_none=True) if event.usage_metadata else None
    span.set_attributes(semconv.usage_attributes(usage, event.model_version))
    if event.error_code:
        _fail(span, event.error_code)
    traced.models[event.id] = span


def tool_started(ctx: InvocationContext, tool_name: str, call_id: Optional[str]) -> Optional[Span]:
    traced = ctx._shared.trace
    if traced is None:
        return None
    return traced.start(
        f"{semconv.EXECUTE_TOOL} {tool_name}", ctx.trace_span, semconv.EXECUTE_TOOL, ctx.agent.name,
        **semconv.tool_attributes(tool_name, call_id),
    )


def tool_running(span: Optional[Span]) -> ContextManager[Any]:
    """The tool's own code runs with its span current (no yield in between: safe to attach)."""
    return nullcontext() if span is None else trace.use_span(span, end_on_exit=False)


def tool_answered(ctx: InvocationContext, span: Span, call_id: Optional[str], event: Optional[Event]) -> None:
    """The tool call gave ``event`` (its result, None, or only its state changes when the result
    comes later); the span ends when its result is logged, or with the invocation."""
    traced: InvocationTrace = ctx._shared.trace
    for response in event.get_function_responses() if event is not None else ():
        error_type = semconv.tool_result_error(response.response)
        if error_type:
            _fail(span, error_type)
    traced.tools[call_id or ""] = span


def tool_failed(ctx: InvocationContext, span: Span, error: BaseException) -> None:
    # A cancelled call (a sibling failed) takes the failure's error.type from its record.
    ctx._shared.trace.fail(span, error if isinstance(error, Exception) else None)
