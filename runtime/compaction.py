"""Event compaction: long conversations summarised for the model, never deleted from the log.

`App(events_compaction_config=EventsCompactionConfig(...))` makes the Runner check, after each
invocation (finished or paused), whether to compact:

* sliding window — once `compaction_interval` invocations have happened since the last compaction,
  their events (and those of the `overlap_size` invocations before them) are summarised;
* token threshold — once the model's latest prompt (`usage_metadata.prompt_token_count`, or an
  estimate) reaches `token_threshold` tokens, every event since the last compaction except the
  newest `event_retention_size` is summarised, the last summary included (a rolling summary).

The summary is recorded as one event whose `actions.compaction` holds the summary, the time span
and the exact ids of the events it covers. The log keeps every event; the LLM-context fold
(runtime.agents.llm_context) shows the summary in place of the covered events. Events that must stay
in front of the model are never covered: tool calls still waiting for their results (long-running
calls, confirmations, credential requests, calls a crash left unanswered), and the interim results
of such calls. A compaction is an event like any other: rewinding to before any event it covers,
or to the compaction itself, hides it, and the model sees the events again.
"""

from __future__ import annotations

import abc
import logging
from typing import Any, Optional, Sequence

from google.genai import types
from pydantic import BaseModel, ConfigDict, field_validator

from domain.errors import InvalidArgumentError
from domain.events import Event, EventActions, EventCompaction

logger = logging.getLogger("chronicle.compaction")

_INTERNAL_CALLS = ("adk_request_confirmation", "adk_request_credential")

# google-adk 2.13's prompt, word for word: the summariser is a model call like any other, and an
# ADK app must prompt its model as it did on ADK.
DEFAULT_PROMPT = (
    "The following is a conversation history between a user and an AI agent. It may or may not start from a "
    "compacted history. Please identify and reiterate the user request, summarize the context so far, focusing "
    "on key decisions made and information obtained, as well as any unresolved questions or tasks. "
    "CRITICAL INSTRUCTIONS: 1. Explicitly identify and state the primary language used by the user at the top "
    'of your summary (e.g., "Conversation Language: English"). 2. If the agent called any tools, accurately '
    "list the exact tool names used to maintain tool grounding. The rest of the summary should be concise and "
    "capture the essence of the interaction.\n\n{conversation_history}"
)
MAX_TOOL_CONTENT_CHARS = 2000  # how much of a tool call's arguments or result the summariser is shown


class BaseEventsSummarizer(abc.ABC):
    """Turns events into one compaction event (ADK's interface)."""

    @abc.abstractmethod
    async def maybe_summarize_events(self, *, events: list[Event]) -> Optional[Event]:
        """An event whose `actions.compaction` summarises `events`, or None to skip."""


class LlmEventSummarizer(BaseEventsSummarizer):
    """Asks a model for the summary."""

    def __init__(self, llm: Any, prompt_template: Optional[str] = None):
        from runtime.models import BaseLlm

        if not isinstance(llm, BaseLlm):
            raise InvalidArgumentError(f"LlmEventSummarizer needs a BaseLlm, got {type(llm).__name__}")
        self.llm = llm
        self.prompt_template = prompt_template or DEFAULT_PROMPT

    async def maybe_summarize_events(self, *, events: list[Event]) -> Optional[Event]:
        from runtime.models import LlmRequest

        if not events:
            return None
        prompt = self.prompt_template.format(conversation_history=format_events(events))
        request = LlmRequest(model=self.llm.model, contents=[types.Content(role="user", parts=[types.Part(text=prompt)])])
        summary: Optional[types.Content] = None
        responses = self.llm.generate_content_async(request, stream=False)
        try:
            async for response in responses:
                if response.content is not None and response.content.parts:
                    summary = response.content
                    break
        finally:
            await responses.aclose()
        if summary is None:
            return None
        return compaction_event(events, types.Content(role="model", parts=list(summary.parts or [])))


def compaction_event(events: Sequence[Event], summary: types.Content) -> Event:
    """The event that records `summary` as standing in for `events` (ids, time span)."""
    from runtime.invocation_context import new_invocation_context_id

    return Event(
        author="user",
        invocation_id=new_invocation_context_id(),
        actions=EventActions(
            compaction=EventCompaction(
                start_timestamp=min(e.timestamp for e in events),
                end_timestamp=max(e.timestamp for e in events),
                compacted_content=summary,
                event_ids=[e.id for e in events],
            )
        ),
    )


def format_events(events: Sequence[Event]) -> str:
    """A plain transcript of events for the summariser, as google-adk 2.13 writes it: texts, thoughts,
    tool calls and results (each capped), and earlier summaries; credential requests left out."""
    lines = []
    for event in events:
        if event.actions.compaction is not None:
            text = "".join(p.text or "" for p in event.actions.compaction.compacted_content.parts or [] if not p.thought)
            lines.append(f"{event.author}: {text}")
            continue
        parts = event.content.parts if event.content and event.content.parts else []
        if any(p.function_call and p.function_call.name == "adk_request_credential" for p in parts):
            continue
        for part in parts:
            if part.thought and part.text:
                lines.append(f"{event.author} (thought): {part.text}")
            elif part.text:
                lines.append(f"{event.author}: {part.text}")
            if part.function_call:
                args = _capped(str(part.function_call.args))
                lines.append(f"{event.author} called tool: {part.function_call.name}({args})")
            if part.function_response:
                lines.append(f"Tool response from {part.function_response.name}: "
                             f"{_capped(str(part.function_response.response))}")
    return "\n".join(lines)


def _capped(text: str) -> str:
    if len(text) <= MAX_TOOL_CONTENT_CHARS:
        return text
    return f"{text[:MAX_TOOL_CONTENT_CHARS]}... [truncated {len(text) - MAX_TOOL_CONTENT_CHARS} chars]"


class EventsCompactionConfig(BaseModel):
    """When and how the Runner compacts a session's events (see the module docstring)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    compaction_interval: int
    """Compact once this many invocations happened since the last compaction (0: never by count)."""
    overlap_size: int = 0
    """How many invocations before those to summarise again, for continuity."""
    token_threshold: Optional[int] = None
    """Compact once the model's latest prompt reaches this many tokens."""
    event_retention_size: Optional[int] = None
    """With token_threshold: how many of the newest events stay as they are (default 0)."""
    summarizer: Optional[Any] = None
    """A BaseEventsSummarizer, or a model (BaseLlm) to summarise with; default: the root agent's model."""

    @field_validator("compaction_interval", "overlap_size")
    @classmethod
    def _non_negative(cls, value: int) -> int:
        if value < 0:
            raise InvalidArgumentError(f"compaction_interval and overlap_size must be 0 or more, got {value}")
        return value

    @field_validator("token_threshold", "event_retention_size")
    @classmethod
    def _optional_non_negative(cls, value: Optional[int]) -> Optional[int]:
        if value is not None and value < 0:
            raise InvalidArgumentError(f"token_threshold and event_retention_size must be 0 or more, got {value}")
        return value

    @field_validator("summarizer")
    @classmethod
    def _check_summarizer(cls, value: Any) -> Any:
        from runtime.models import BaseLlm

        if value is None or isinstance(value, BaseEventsSummarizer):
            return value
        if isinstance(value, BaseLlm):
            return LlmEventSummarizer(value)
        if callable(getattr(value, "maybe_summarize_events", None)):
            return value
        raise InvalidArgumentError(
            f"summarizer must be a BaseEventsSummarizer or a model (BaseLlm), got {type(value).__name__}"
        )


# -- choosing what to compact (pure over the session's visible events) --------------------------


def _conversational(event: Event) -> bool:
    """An event the model sees (or might): not a compaction, rewind or agent-state marker."""
    actions = event.actions
    return (
        actions.compaction is None
        and not actions.rewind_before_invocation_id
        and actions.end_of_agent is None
        and actions.agent_state is None
    )


def _has_content(event: Event) -> bool:
    return bool(event.content and event.content.parts)


def kept_event_ids(events: Sequence[Event]) -> set[str]:
    """Events that must stay in front of the model: calls still waiting for a result (a
    long-running call the client has not answered, a confirmation or credential request, a call
    a crash left without a result) and interim results of such calls."""
    answered, answered_by_user = set(), set()
    for event in events:
        for response in event.get_function_responses():
            if response.id:
                answered.add(response.id)
                if event.author == "user":
                    answered_by_user.add(response.id)
    confirmed: set[str] = set()  # original calls whose confirmation/credential request was answered
    for event in events:
        for call in event.get_function_calls():
            if call.name in _INTERNAL_CALLS and call.id in answered_by_user:
                original = (call.args or {}).get("originalFunctionCall") or (call.args or {}).get("function_call") or {}
                if isinstance(original, dict) and original.get("id"):
                    confirmed.add(original["id"])
    kept: set[str] = set()
    waiting: set[str] = set()
    for event in events:
        long_running = event.long_running_tool_ids or set()
        pending = {
            c.id
            for c in event.get_function_calls()
            if c.id and (c.id not in answered or (c.id in long_running and c.id not in answered_by_user))
        }
        requested = {**event.actions.requested_tool_confirmations, **event.actions.requested_auth_configs}
        unanswered = {key for key in requested if key not in confirmed}
        if pending or unanswered:
            kept.add(event.id)
            waiting |= pending | unanswered  # an unanswered request's original call stays too
    for event in events:
        if any(r.id in waiting for r in event.get_function_responses()) or any(
            c.id in waiting for c in event.get_function_calls()
        ):
            kept.add(event.id)
    return kept


def _latest_compaction(events: Sequence[Event]) -> tuple[int, Optional[Event]]:
    """The index of the last event the latest compaction covers (-1 if none), and that compaction."""
    for i in range(len(events) - 1, -1, -1):
        compaction = events[i].actions.compaction
        if compaction is not None:
            ids = set(compaction.event_ids)
            last = next((j for j in range(i - 1, -1, -1) if events[j].id in ids), -1)
            return last, events[i]
    return -1, None


def _prompt_tokens(events: Sequence[Event], after: int, seed: Optional[Event]) -> int:
    for event in reversed(events):
        usage = event.usage_metadata
        if usage is not None and usage.prompt_token_count is not None:
            return usage.prompt_token_count
    chars = sum(len(p.text or "") for e in events[after + 1 :] if _has_content(e) for p in e.content.parts)
    if seed is not None:
        chars += sum(len(p.text or "") for p in seed.actions.compaction.compacted_content.parts or [])
    return chars // 4


def choose_events(events: Sequence[Event], config: EventsCompactionConfig) -> tuple[list[Event], Optional[Event]]:
    """The events to summarise now (empty: no compaction is due), and the earlier compaction to
    fold into the new summary (token-threshold compaction rolls the previous summary in)."""
    last_covered, latest = _latest_compaction(events)

    if config.token_threshold is not None and _prompt_tokens(events, last_covered, latest) >= config.token_threshold:
        tail = events[last_covered + 1 :]
        candidates = [e for e in tail if _conversational(e) and _has_content(e)]
        retain = config.event_retention_size or 0
        if len(candidates) > retain:
            kept = kept_event_ids(tail)
            chosen = [e for e in candidates[: len(candidates) - retain] if e.id not in kept]
            if chosen:
                return chosen, latest

    interval = config.compaction_interval
    if interval <= 0:
        return [], None
    # Invocations since the last compaction, newest first, then `overlap_size` more before them.
    new: list[str] = []
    for event in events[last_covered + 1 :]:
        if _conversational(event) and event.invocation_id and event.invocation_id not in new:
            new.append(event.invocation_id)
    if len(new) < interval:
        return [], None
    wanted = set(new)
    start = next(i for i, e in enumerate(events) if e.invocation_id in wanted and _conversational(e))
    overlap: list[str] = []
    i = start - 1
    while i >= 0 and config.overlap_size:
        event = events[i]
        if _conversational(event) and event.invocation_id and event.invocation_id not in wanted:
            if event.invocation_id not in overlap:
                if len(overlap) == config.overlap_size:
                    break
                overlap.append(event.invocation_id)
            start = i
        i -= 1
    window = [e for e in events[start:] if _conversational(e) and _has_content(e)]
    kept = kept_event_ids(events[start:])
    return [e for e in window if e.id not in kept], None


async def maybe_compact(
    config: EventsCompactionConfig, session: Any, session_service: Any, *, default_llm: Any = None
) -> Optional[Event]:
    """Appends a compaction event to `session` if one is due; returns it (or None)."""
    chosen, previous = choose_events(session.live_events(), config)
    if not chosen:
        return None
    summarizer = config.summarizer
    if summarizer is None:
        if default_llm is None:
            logger.warning("Compaction is due but there is no summarizer and no root model; set one.")
            return None
        summarizer = LlmEventSummarizer(default_llm)
    inputs = ([previous] if previous is not None else []) + chosen
    event = await summarizer.maybe_summarize_events(events=inputs)
    if event is None:
        return None
    compaction = event.actions.compaction
    if compaction is None:
        raise InvalidArgumentError("A summarizer must return an event whose actions.compaction is set.")
    if not compaction.event_ids:
        compaction.event_ids = [e.id for e in inputs]
    if compaction.compacted_content.role != "model":
        compaction.compacted_content.role = "model"
    return await session_service.append_event(session, event)
