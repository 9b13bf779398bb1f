"""Which agent answers the next message, read from the session's events (ADK's rule)."""

from __future__ import annotations

from typing import Optional, Sequence

from domain.events import Event
from runtime.agents.base_agent import BaseAgent
from runtime.events.error_events import is_failure_record


def agent_to_run(root: BaseAgent, events: Sequence[Event]) -> BaseAgent:
    """The agent whose function call the user's last message answers; else the agent that answered
    last (or was transferred to last), if it (and its ancestors) can transfer back up; else the
    root agent. A content-less failure record is not an answer."""
    if events and events[-1].author == "user" and events[-1].get_function_responses():
        call_event = matching_function_call(events, events[-1])
        if call_event is not None:
            found = root.find_agent(call_event.author)
            if found is not None:
                return found
    for event in reversed(events):
        if event.author == "user" or event.actions.agent_state is not None or event.actions.end_of_agent:
            continue
        if is_failure_record(event):
            continue  # no reply
        target = _unanswered_transfer_target(root, event)
        if target is not None:
            return target  # it owns the turn even if it failed before it replied (ADK 2.13)
        if event.author == root.name:
            return root
        agent = root.find_sub_agent(event.author)
        if agent is not None and _delegated(agent):
            return _delegator(agent)  # a task (or single-turn) agent's talk goes on through its chat agent
        if agent is not None and _is_transferable_across_agent_tree(agent):
            return agent
    return root


def _delegated(agent: BaseAgent) -> bool:
    from runtime.agents.single_turn import DELEGATED_MODES

    return getattr(agent, "mode", None) in DELEGATED_MODES


def _delegator(agent: BaseAgent) -> BaseAgent:
    """The chat agent that delegated to `agent` (the nearest ancestor not itself delegated to)."""
    current = agent
    while current.parent_agent is not None and _delegated(current):
        current = current.parent_agent
    return current


def matching_function_call(events: Sequence[Event], response_event: Event) -> Optional[Event]:
    """The event holding the function call that `response_event` (a user message) answers."""
    if response_event.author != "user":
        return None
    responses = response_event.get_function_responses()
    if not responses or not responses[0].id:
        return None
    call_id = responses[0].id
    for event in reversed(events):
        for call in event.get_function_calls():
            if call.id == call_id:
                return event
    return None


def _unanswered_transfer_target(root: BaseAgent, event: Event) -> Optional[BaseAgent]:
    source = root.find_agent(event.author) if event.actions.transfer_to_agent else None
    targets = getattr(source, "transfer_targets", None)
    if targets is None:
        return None
    target = next((a for a in targets() if a.name == event.actions.transfer_to_agent), None)
    return target if target is not None and _is_transferable_across_agent_tree(target) else None


def _is_transferable_across_agent_tree(agent: BaseAgent) -> bool:
    current: Optional[BaseAgent] = agent
    while current is not None:
        if not hasattr(current, "disallow_transfer_to_parent") or current.disallow_transfer_to_parent:
            return False
        current = current.parent_agent
    return True
