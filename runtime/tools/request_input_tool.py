"""`request_input`: a tool the model calls to ask the user something and wait for the answer
(ADK 2.x's `adk_request_input`, a long-running call the client answers)."""

from __future__ import annotations

from typing import Any, Optional

from projections.pending import REQUEST_INPUT
from runtime.tools.function_tool import LongRunningFunctionTool


def _request_input(message: str, response_schema: Optional[dict[str, Any]] = None) -> None:
    """Asks the user a question and waits for their answer.

    Args:
      message: The question to show the user.
      response_schema: JSON Schema of the expected answer ({"type": "string"} for free text).
    """
    return None  # no result now: the invocation waits for the user's answer


request_input = LongRunningFunctionTool(_request_input, name=REQUEST_INPUT)
