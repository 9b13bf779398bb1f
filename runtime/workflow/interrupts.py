"""Human input from a node: a node yields a RequestInput; the workflow records the same
`adk_request_input` call a tool's request makes (runtime.events.request_input: long-running, so a
resumable invocation pauses on it), and the node waits. The client answers with a FunctionResponse
of that id; the resumed invocation reads the answer from the log. A node's credential request
(`adk_request_credential`, runtime.workflow.node_auth) waits the same way.
"""

from __future__ import annotations

import json
from typing import Any

from domain.events import Event
from projections.pending import REQUEST_CONFIRMATION, REQUEST_CREDENTIAL, REQUEST_INPUT
from runtime.events.request_input import RequestInput, request_input_event


def is_request_input(item: Any) -> bool:
    return isinstance(item, RequestInput)


def credential_requests(item: Any) -> list[str]:
    """The ids of the credential requests an event a node yields makes (runtime.workflow.node_auth)."""
    if not isinstance(item, Event) or not item.long_running_tool_ids:
        return []
    return [c.id for c in item.get_function_calls() if c.name == REQUEST_CREDENTIAL and c.id in item.long_running_tool_ids]


def request_event(item: RequestInput) -> Event:
    """The request's event; the scheduler fills in its invocation and author (the node)."""
    return request_input_event(item, invocation_id="", author="")


def answers(events: list[Event]) -> dict[str, Any]:
    """The client's answers (interrupt id -> response) in an invocation's events."""
    found: dict[str, Any] = {}
    for event in events:
        if event.author != "user":
            continue
        for response in event.get_function_responses():
            if response.name in (REQUEST_INPUT, REQUEST_CREDENTIAL, REQUEST_CONFIRMATION) and response.id:
                found[response.id] = unwrapped(response.response)
    return found


def unwrapped(response: Any) -> Any:
    """The answer a node gets, as ADK gives it: `{"result": x}` is x (text that is JSON, parsed:
    a web form sends every answer as text); any other response as it is."""
    if not (isinstance(response, dict) and len(response) == 1 and "result" in response):
        return response
    value = response["result"]
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
