"""ADK's module path for InvocationContext."""

from runtime.invocation_context import InvocationContext, new_invocation_context_id

__all__ = ["InvocationContext", "new_invocation_context_id"]
