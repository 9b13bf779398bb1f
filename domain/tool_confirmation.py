"""ToolConfirmation: a person's answer to "may this tool call run?" (ADK's wire shape). In the
domain because an event's actions hold it (`requested_tool_confirmations`), typed as in ADK."""

from __future__ import annotations

import json
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, ValidationError, alias_generators

from domain.errors import InvalidAnswerError


class ToolConfirmation(BaseModel):
    """Sent to the client in `adk_request_confirmation`'s `toolConfirmation` argument, and back
    (with `confirmed` set) as that call's FunctionResponse. Unknown keys are refused."""

    model_config = ConfigDict(extra="forbid", alias_generator=alias_generators.to_camel, populate_by_name=True)

    hint: str = ""
    """Why the confirmation is asked for, for the person."""
    confirmed: bool = False
    payload: Optional[Any] = None
    """Custom JSON data the person fills in (e.g. an approved amount)."""

    @classmethod
    def from_response_dict(cls, response: dict[str, Any]) -> ToolConfirmation:
        """Reads a FunctionResponse's `response`: the ToolConfirmation itself, or the ADK web
        client's `{"response": "<json>"}` wrapper. A bad shape raises InvalidAnswerError."""
        try:
            if response and len(response) == 1 and "response" in response:
                return cls.model_validate(json.loads(response["response"]))
            return cls.model_validate(response or {})
        except (ValidationError, ValueError, TypeError) as error:
            raise InvalidAnswerError(
                "The answer to adk_request_confirmation is not a ToolConfirmation "
                '({"confirmed": true|false, "hint": "...", "payload": ...}): ' + str(error).splitlines()[0]
            ) from None

