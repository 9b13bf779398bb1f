"""RequestInput: asking the user for input and pausing until they answer (ADK 2.x's
`google.adk.events.RequestInput`). On the wire it is an `adk_request_input` function call whose
id (the interrupt id) is in the event's `long_running_tool_ids`; the client answers with a
FunctionResponse of that id. The model asks through the `request_input` tool; a workflow node
turns a RequestInput into the same event with `request_input_event`."""

from __future__ import annotations

import uuid
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, alias_generators

from domain.events import Event
from projections.pending import REQUEST_INPUT


class RequestInput(BaseModel):
    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, arbitrary_types_allowed=True)

    interrupt_id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    """The id the answer must carry (the function call's id)."""
    payload: Optional[Any] = None
    message: Optional[str] = None
    """What to show the user."""
    response_schema: Optional[Any] = None
    """The expected answer: a JSON Schema dict, or a pydantic model class."""

    def schema_json(self) -> Optional[dict[str, Any]]:
        schema = self.response_schema
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            return schema.model_json_schema()
        return schema


def request_input_event(request: RequestInput, *, invocation_id: str, author: str, branch: Optional[str] = None) -> Event:
    args = request.model_dump(by_alias=True, exclude={"response_schema"})
    args["response_schema"] = request.schema_json()  # as ADK: this key is not camelCased
    call = types.FunctionCall(id=request.interrupt_id, name=REQUEST_INPUT, args=args)
    return Event(
        invocation_id=invocation_id,
        author=author,
        branch=branch,
        content=types.Content(role="model", parts=[types.Part(function_call=call)]),
        long_running_tool_ids={request.interrupt_id},
    )
