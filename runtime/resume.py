"""Pausing and resuming invocations (`ResumabilityConfig(is_resumable=True)`), read from the log.

An invocation pauses when an agent makes a long-running tool call: the call event is stored
with `long_running_tool_ids`, the agent (and every agent above it) stops without recording that
it ended, and `run_async` returns. In a resumable app every agent records an `end_of_agent`
event when it finishes, and a LoopAgent records which sub-agent (and iteration) it is on in an
`agent_state` event, so the log says how far an invocation got.

`run_async(invocation_id=<paused id>, new_message=<FunctionResponse>)` resumes it: the response
is stored as one user event of the same invocation, the agent the invocation started with runs
again, agents that ended are skipped, and each LlmAgent picks up where its events stop (see
`llm_resume_point`): tools whose results are stored are never run again, calls without results
(a process that died mid-invocation) are run, and the model is asked only when the conversation
needs its answer. A function response for a paused call resumes its invocation even when the
app leaves the invocation id out.

This module is pure over events: it reads, it never writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Literal, Optional, Sequence

from google.genai import types

from domain.events import Event
from projections.pending import INVOCATION_ABORTED, REQUEST_CONFIRMATION, REQUEST_CREDENTIAL
from runtime.events.error_events import is_failure_record

Kind = Literal["fresh", "model", "run_calls", "paused", "transfer", "done"]


@dataclass
class ResumePoint:
    """Where an LlmAgent picks up a resumed invocation.

    * ``fresh`` — it has no events in the invocation yet: run as usual;
    * ``model`` — ask the model (the user spoke last, or tool results are stored but not answered);
    * ``run_calls`` — run the calls of `call_event` listed in `call_ids` (their results are missing),
      then go on as usual;
    * ``paused`` — long-running calls still wait for the client: stay paused;
    * ``transfer`` — it had handed the conversation to `target`, which has not finished: resume it;
    * ``done`` — its last turn is a final answer (it ended before recording so).
    """

    kind: Kind
    call_event: Optional[Event] = None
    call_ids: list[str] = field(default_factory=list)
    target: Optional[str] = None


def is_state_marker(event: Event) -> bool:
    return event.actions.end_of_agent is not None or event.actions.agent_state is not None


def should_pause(event: Event) -> bool:
    """True for a stored event that pauses a resumable invocation: a long-running tool call."""
    ids = event.long_running_tool_ids
    if not ids:
        return False
    return any(call.id in ids for call in event.get_function_calls())


def answered_call_ids(events: Iterable[Event], *, by_user: bool = False) -> set[str]:
    """Ids of the calls that have a result among `events` (only results the client sent, if
    `by_user`)."""
    answered: set[str] = set()
    for event in events:
        if by_user and event.author != "user":
            continue
        for response in event.get_function_responses():
            if response.id:
                answered.add(response.id)
    return answered


def pending_long_running(call_event: Event, later: Sequence[Event]) -> list[str]:
    """The long-running calls of `call_event` the client has not answered yet."""
    ids = call_event.long_running_tool_ids or set()
    answered = answered_call_ids(later, by_user=True)
    return [c.id for c in call_event.get_function_calls() if c.id in ids and c.id not in answered]


def llm_resume_point(agent_name: str, events: Sequence[Event], ended: set[str]) -> ResumePoint:
    """Where LlmAgent `agent_name` resumes, given its invocation's events on its branch."""
    own = [
        e
        for e in events
        if e.author in (agent_name, "user") and not is_state_marker(e) and (_has_parts(e) or e.actions.transfer_to_agent)
    ]
    mine = [e for e in own if e.author == agent_name]
    if not mine:
        return ResumePoint("fresh")
    if mine[-1].actions.transfer_to_agent:  # it handed over: what came since is the target's
        target = mine[-1].actions.transfer_to_agent
        return ResumePoint("done") if target in ended else ResumePoint("transfer", target=target)
    last = own[-1]
    call_index = next(
        (
            i
            for i in range(len(own) - 1, -1, -1)
            if own[i].author == agent_name and own[i].get_function_calls() and not asks_a_person(own[i])
        ),
        None,
    )
    if call_index is not None:
        call_event, later = own[call_index], own[call_index + 1 :]
        after_results = [e for e in later if e.author == "user" or e.get_function_responses() or asks_a_person(e)]
        if len(after_results) == len(later):  # nothing but results, requests and client messages since
            if last.author == "user" and not last.get_function_responses():
                return ResumePoint("model")  # the user said something new
            answered = answered_call_ids(later)
            requests = [e for e in later if asks_a_person(e)]
            # A call a request is about waits for the person, whether or not its placeholder
            # result was stored before a crash: it never goes through its gate twice.
            waiting = {i for e in requests for i in requested_for(e)}
            missing = [
                c.id
                for c in call_event.get_function_calls()
                if c.id not in answered and c.id not in waiting and c.id not in (call_event.long_running_tool_ids or set())
            ]
            if missing and not _failed_after(events, call_event):
                # A crash left them unrun: they run now. Calls whose invocation failed after them
                # (a tool raised, its siblings were cancelled) are finished, as in ADK 2.13: the
                # model goes on without them (runtime.agents.llm_context leaves them out).
                return ResumePoint("run_calls", call_event=call_event, call_ids=missing)
            if pending_long_running(call_event, later) or any(pending_long_running(e, later) for e in requests):
                return ResumePoint("paused")
            return ResumePoint("model")
    if last.author == "user":
        return ResumePoint("model")
    return ResumePoint("done") if last.is_final_response() else ResumePoint("model")


def asks_a_person(event: Event) -> bool:
    """True for the event holding requests to a person (confirmations, credentials) made for
    calls whose tools asked: every call in it is one of those requests."""
    calls = event.get_function_calls()
    return bool(calls) and all(c.name in (REQUEST_CONFIRMATION, REQUEST_CREDENTIAL) for c in calls)


def requested_for(event: Event) -> set[str]:
    """The ids of the original calls the requests of `event` are about."""
    ids = set()
    for call in event.get_function_calls():
        args = call.args or {}
        original = (args.get("originalFunctionCall") or {}).get("id") or args.get("functionCallId")
        if original:
            ids.add(original)
    return ids


def _failed_after(events: Sequence[Event], call_event: Event) -> bool:
    start = next((i for i, e in enumerate(events) if e.id == call_event.id), len(events))
    return any(is_failure_record(e) for e in events[start + 1 :])


def _has_parts(event: Event) -> bool:
    return bool(event.content and event.content.parts)


def only_calls(call_event: Event, call_ids: Sequence[str]) -> Event:
    """A copy of `call_event` that holds only the given calls (to run the ones left)."""
    wanted = set(call_ids)
    parts = [p for p in call_event.content.parts if p.function_call is None or p.function_call.id in wanted]
    copy = call_event.model_copy(deep=True)
    copy.content = types.Content(role=call_event.content.role, parts=[p.model_copy(deep=True) for p in parts])
    return copy


def paused_invocation_answered_by(events: Sequence[Event], message: types.Content) -> Optional[str]:
    """The paused invocation whose long-running call `message` answers, if any."""
    ids = {p.function_response.id for p in message.parts or [] if p.function_response and p.function_response.id}
    if not ids:
        return None
    answered: set[str] = set()
    for event in reversed(events):
        if event.long_running_tool_ids and ids & event.long_running_tool_ids:
            still_waiting = (ids & event.long_running_tool_ids) - answered
            return (event.invocation_id or None) if still_waiting else None
        if event.author == "user" or event.error_code == INVOCATION_ABORTED:  # answered, or cancelled
            answered.update(r.id for r in event.get_function_responses() if r.id)
    return None


def invocation_of_calls_answered_by(events: Sequence[Event], message: types.Content) -> Optional[str]:
    """The one invocation whose function calls `message`'s results all answer, else None (no
    results, a result for an unknown call, or calls of several invocations). A non-resumable app
    records the answer in that invocation, as ADK 2.13 does, though it runs as a new one."""
    ids = {p.function_response.id for p in message.parts or [] if p.function_response and p.function_response.id}
    if not ids:
        return None
    found: set[str] = set()
    for event in reversed(events):
        for call in event.get_function_calls():
            if call.id in ids:
                ids.discard(call.id)
                found.add(event.invocation_id)
        if not ids:
            break
    return found.pop() if not ids and len(found) == 1 else None


def invocation_start(events: Sequence[Event], invocation_id: str) -> Optional[int]:
    """The index of the invocation's first event, or None."""
    for i, event in enumerate(events):
        if event.invocation_id == invocation_id:
            return i
    return None
