"""Traces after the fact: a session's log folded into the spans the live run reports.

Everything a span says is in the log, so any past session -- one recorded before tracing was
switched on included -- becomes the same spans (names, nesting, attributes; see ``semconv``),
timed by its events' timestamps. The fold starts from the session's timeline
(``projections.timeline``) and adds each event's digest, read from the log:

* an invocation's first agent is the root ``invoke_agent`` span; an agent an event transferred to
  is its child; an agent that takes over otherwise (a sequence's next step) is its sibling;
* each model turn is a model-call span under its agent, from the previous event to the turn;
* each tool result is an ``execute_tool`` span under its agent, from the call to the result;
* the event that records a failure ends the calls still unanswered (or, if none, the model call
  that was running) with its ``error.type``, and marks the agents it passed through.

Each invocation is a trace of its own, with ids derived from the session and invocation, so the
same log always gives the same ids (exporting twice sends the same spans).

What the log does not hold, the fold cannot show: agents that log no event of their own (a
SequentialAgent's own span), the model a failed call asked for (it takes the model the agent
last answered with), and the requested model's name (it takes the model that answered).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import reduce
from typing import Any, Optional

from pydantic_core import from_json

from domain.errors import SessionNotFoundError
from domain.session_log import session_log_id
from projections.timeline import Invocation, Step, Timeline, fold_timeline
from runtime.log_reader import LogReader
from runtime.read_models.source import LogSource
from runtime.stores import Store
from runtime.telemetry import semconv


@dataclass
class TraceSpan:
    """One span, live or folded: OTLP's fields, times in nanoseconds since the epoch."""

    name: str
    trace_id: str  # 32 hex digits
    span_id: str  # 16 hex digits
    parent_span_id: Optional[str]
    start_time_unix_nano: int
    end_time_unix_nano: int
    attributes: dict[str, Any] = field(default_factory=dict)
    error: bool = False  # the span's status

    def to_json(self) -> dict[str, Any]:
        """What the server's traces route answers, per span."""
        return {
            "name": self.name,
            "span_id": self.span_id,
            "parent_span_id": self.parent_span_id,
            "start_time_unix_nano": self.start_time_unix_nano,
            "end_time_unix_nano": self.end_time_unix_nano,
            "attributes": dict(self.attributes),
        }


def session_spans(store: Store, app_name: str, user_id: str, session_id: str) -> list[TraceSpan]:
    """The spans of every invocation of a stored session (deleted ones too: the log stays)."""
    log_id = session_log_id(app_name, user_id, session_id)
    events = LogSource(store).session_events(log_id)
    if not events:
        raise SessionNotFoundError(app_name, user_id, session_id)
    timeline = reduce(fold_timeline, events, Timeline())
    digests = {version: from_json(state).get("digest") for version, _, state in LogReader(store).rows(log_id)}
    return timeline_spans(timeline, digests)


def timeline_spans(timeline: Timeline, digests: dict[int, Optional[str]]) -> list[TraceSpan]:
    """The spans of a session's timeline; ``digests`` maps its log versions to their digests."""
    spans: list[TraceSpan] = []
    last_model: dict[str, str] = {}  # agent -> the model it last answered with
    for invocation in timeline.invocations:
        if not invocation.copied:  # a fork's copy of its source's history is not its own activity
            spans.extend(_Invocation(timeline.session_id, invocation, digests, last_model).spans())
    return spans


def _ns(seconds: float) -> int:
    return int(round(seconds * 1e9))


def _hex(text: str, digits: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:digits]


@dataclass
class _Agent:
    name: str
    span: TraceSpan


class _Invocation:
    """Folds one invocation's steps into spans."""

    def __init__(self, session_id: str, invocation: Invocation, digests: dict[int, Optional[str]],
                 last_model: dict[str, str]):
        self.session_id = session_id
        self.invocation = invocation
        self.digests = digests
        self.last_model = last_model
        self.trace_id = _hex(f"{session_id}/{invocation.invocation_id}", 32)
        self.out: list[TraceSpan] = []
        self.stack: list[_Agent] = []
        self.calls: dict[str, tuple[float, TraceSpan]] = {}  # unanswered call id -> (its time, its agent's span)
        self.call_names: dict[str, str] = {}
        self.transfer_to: Optional[str] = None
        self.previous = invocation.started

    def spans(self) -> list[TraceSpan]:
        for step in self.invocation.steps:
            if step.author != "user" and step.node is None and step.rewind_before is None:
                self._step(step)
            self.previous = step.timestamp
        for call_id, (started, parent) in list(self.calls.items()):
            # A long-running call: its result comes in a later invocation, from the client.
            self._tool(call_id, self._name_of_call(call_id), started, self.invocation.ended, parent)
        return self.out

    def _step(self, step: Step) -> None:
        has_content = bool(step.text or step.tool_calls or step.tool_results)
        failure = semconv.is_failure_record(step.error_code, has_content, step.model)
        pointer = semconv.event_attributes(step.event_id, step.version, self.digests.get(step.version))
        if failure:
            self._fail(step, pointer)
        agent = self._enter(step.author)
        agent.span.attributes.update(pointer)  # an agent points at the last event it authored
        for open_agent in self.stack:
            open_agent.span.end_time_unix_nano = _ns(step.timestamp)
        if failure:
            return
        if step.tool_results:
            for result in step.tool_results:
                started, _ = self.calls.pop(result.id or "", (self.previous, agent.span))
                span = self._tool(result.id, result.name, started, step.timestamp, agent.span)
                span.attributes.update(pointer)
                if result.error:
                    _set_error(span, semconv.tool_result_error(result.response))
        elif step.text or step.tool_calls or step.error_code:
            span = self._model(step.model, step.timestamp, agent.span)
            span.attributes.update(semconv.usage_attributes(_usage(step), step.model))
            span.attributes.update(pointer)
            if step.error_code:
                _set_error(span, step.error_code)
            for call in step.tool_calls:
                self.calls[call.id or ""] = (step.timestamp, agent.span)
            self.call_names.update({call.id or "": call.name for call in step.tool_calls})
            if step.model:
                self.last_model[step.author] = step.model
        if step.transfer_to:
            self.transfer_to = step.transfer_to

    def _name_of_call(self, call_id: str) -> str:
        return self.call_names.get(call_id, "?")

    def _fail(self, step: Step, pointer: dict[str, Any]) -> None:
        """The record of an exception: the calls it cut short (or the model call) failed with it."""
        if self.calls:
            for call_id, (started, parent) in list(self.calls.items()):
                span = self._tool(call_id, self._name_of_call(call_id), started, step.timestamp, parent)
                span.attributes.update(pointer)
                _set_error(span, step.error_code)
            self.calls.clear()
        elif self.stack:
            model = self.last_model.get(self.stack[-1].name)
            span = self._model(model, step.timestamp, self.stack[-1].span)
            span.attributes.update(pointer)
            _set_error(span, step.error_code)
        for open_agent in self.stack:
            _set_error(open_agent.span, step.error_code)

    def _enter(self, author: str) -> _Agent:
        """The span of the agent that logged the next event: the one running, one it returns
        to, one it transferred to (a child), or the next of a sequence (a sibling)."""
        if self.stack and self.stack[-1].name == author:
            return self.stack[-1]
        if any(a.name == author for a in self.stack):
            while self.stack[-1].name != author:
                self.stack.pop()
            return self.stack[-1]
        if self.stack and self.transfer_to != author:
            self.stack.pop()
        self.transfer_to = None
        parent = self.stack[-1].span if self.stack else None
        span = self._span(f"{semconv.INVOKE_AGENT} {author}", f"agent/{author}/{len(self.out)}",
                          self.previous, self.previous, parent, semconv.INVOKE_AGENT, author)
        agent = _Agent(author, span)
        self.stack.append(agent)
        return agent

    def _model(self, model: Optional[str], ended: float, parent: TraceSpan) -> TraceSpan:
        attributes = semconv.model_attributes(model)
        operation = attributes.pop(semconv.OPERATION)
        span = self._span(semconv.model_span_name(model), f"model/{len(self.out)}", self.previous, ended, parent,
                          operation, parent.attributes[semconv.AGENT_NAME])
        span.attributes.update(attributes)
        return span

    def _tool(self, call_id: Optional[str], name: str, started: float, ended: float, parent: TraceSpan) -> TraceSpan:
        span = self._span(f"{semconv.EXECUTE_TOOL} {name}", f"tool/{call_id}/{len(self.out)}", started, ended,
                          parent, semconv.EXECUTE_TOOL, parent.attributes[semconv.AGENT_NAME])
        span.attributes.update(semconv.tool_attributes(name, call_id))
        return span

    def _span(self, name: str, key: str, started: float, ended: float, parent: Optional[TraceSpan],
              operation: str, agent_name: str) -> TraceSpan:
        span = TraceSpan(
            name=name,
            trace_id=self.trace_id,
            span_id=_hex(f"{self.trace_id}/{key}", 16),
            parent_span_id=parent.span_id if parent is not None else None,
            start_time_unix_nano=_ns(started),
            end_time_unix_nano=_ns(ended),
            attributes=semconv.base_attributes(operation, agent_name, self.session_id, self.invocation.invocation_id),
        )
        self.out.append(span)
        return span


def _set_error(span: TraceSpan, error_type: Optional[str]) -> None:
    span.error = True
    if error_type:
        span.attributes[semconv.ERROR_TYPE] = error_type


def _usage(step: Step) -> dict[str, Any]:
    """The step's token counts under the usage metadata's own names."""
    return {"prompt_token_count": step.usage.get("prompt"), "candidates_token_count": step.usage.get("candidates")}
