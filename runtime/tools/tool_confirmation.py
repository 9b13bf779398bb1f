"""ToolConfirmation at ADK's path (the model itself is in domain, where event actions hold it)."""

from domain.tool_confirmation import ToolConfirmation

REQUEST_CONFIRMATION_FUNCTION_CALL_NAME = "adk_request_confirmation"

__all__ = ["REQUEST_CONFIRMATION_FUNCTION_CALL_NAME", "ToolConfirmation"]
