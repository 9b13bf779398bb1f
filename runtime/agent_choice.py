"""Which agent answers the next message, read from the session's events (ADK's rule)."""

from __future__ import annotations

from typing import Optional, Sequence

from domain.events import Event
from runtime.agents.base_agent import BaseAgent


def agent_to_run(root: BaseAgent, events: Sequence[Event]) -> BaseAgent:
    """The agent whose function call the user's last message answers; else the agent that answered
    last, if it (and its ancestors) can transfer back up; else the root agent."""
    if events and events[-1].author == "user" and events[-1].get_function_responses():
        call_event = matching_function_call(events, events[-1])
        if call_event is not None:
            found = root.find_agent(call_event.author)
            if found is not None:
                return found
    for event in reversed(events):
        if event.author == "user" or event.actions.agent_state is not None or event.actions.end_of_agent:
            continue
        if event.author == root.name:
            return root
        agent = root.find_sub_agent(event.author)
        if agent is not None and _is_transferable_across_agent_tree(agent):
            return agent
    return root


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


def _is_transferable_across_agent_tree(agent: BaseAgent) -> bool:
    current: Optional[BaseAgent] = agent
    while current is not None:
        if not hasattr(current, "disallow_transfer_to_parent") or current.disallow_transfer_to_parent:
            return False
        current = current.parent_agent
    return True
