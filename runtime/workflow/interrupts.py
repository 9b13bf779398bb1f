"""Human input from a node: a node yields a RequestInput; the workflow records the same
`adk_request_input` call a tool's request makes (runtime.events.request_input: long-running, so a
resumable invocation pauses on it), and the node waits. The client answers with a FunctionResponse
of that id; the resumed invocation reads the answer from the log. A node's credential request
(`adk_request_credential`, runtime.workflow.node_auth) waits the same way.
"""

from __future__ import annotations

import json
from typing import Any, Optional

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
    """The client's answers (interrupt id -> response) in an invocation's events; an answer to an
    input request with a response_schema is checked and shaped by it, as ADK does."""
    found: dict[str, Any] = {}
    schemas: dict[str, Any] = {}  # input request id -> its response_schema
    for event in events:
        for call in event.get_function_calls():
            if call.name == REQUEST_INPUT and call.id and (call.args or {}).get("response_schema"):
                schemas[call.id] = call.args["response_schema"]
        if event.author != "user":
            continue
        for response in event.get_function_responses():
            if response.name in (REQUEST_INPUT, REQUEST_CREDENTIAL, REQUEST_CONFIRMATION) and response.id:
                found[response.id] = shaped(unwrapped(response.response), schemas.get(response.id))
    return found


JSON_TYPES: dict[str, type] = {"integer": int, "number": float, "string": str, "boolean": bool, "array": list, "object": dict}


def shaped(answer: Any, schema: Any) -> Any:
    """The answer checked against a request's JSON response_schema as google-adk 2.13 checks it: an
    object's properties by their JSON types (the optional ones None when missing), a value by its
    type; a schema it cannot map passes the answer as it is. WorkflowDataError if it does not fit."""
    from pydantic import TypeAdapter, ValidationError, create_model

    from runtime.workflow.errors import WorkflowDataError

    if not isinstance(schema, dict):
        return answer
    kind = schema.get("type")
    try:
        if kind == "object" and "properties" in schema:
            required = schema.get("required", [])
            fields: dict[str, Any] = {}
            for name, prop in schema["properties"].items():
                typed = JSON_TYPES.get(prop.get("type"), Any) if prop.get("type") else Any
                fields[name] = (typed, ...) if name in required else (Optional[typed], None)
            return TypeAdapter(create_model("Answer", **fields)).validate_python(answer).model_dump()
        if kind in JSON_TYPES:
            return TypeAdapter(JSON_TYPES[kind]).validate_python(answer)
    except ValidationError as error:
        raise WorkflowDataError(f"The answer does not fit the request's response_schema: {error}") from error
    return answer


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
