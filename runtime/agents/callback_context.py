"""ADK's module path for CallbackContext."""

from runtime.contexts import CallbackContext

__all__ = ["CallbackContext"]
