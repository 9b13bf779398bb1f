"""Chronicle's pure domain model: ADK-compatible events and sessions, and the log.

Names are imported on first use, so that ``domain.errors`` alone does not import google-genai."""

from domain.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "domain.errors": [
        "AlreadyExistsError", "ChronicleError", "InputValidationError", "InvalidArgumentError",
        "InvocationNotFoundError", "LlmCallsLimitExceededError", "SessionNotFoundError", "StaleSessionError",
        "StoreError",
    ],
    "domain.events": ["Event", "EventActions", "EventCompaction", "NodeInfo"],
    "domain.session_log": ["SessionLog", "session_log_id"],
    "domain.session": ["Session"],
    "domain.state": ["State"],
})
