"""ADK 2.x's module path for the unified Context (google.adk.agents.context.Context).

The class lives in runtime.contexts, which imports nothing from runtime.agents, so that the
agents and tools can use it without an import cycle."""

from runtime.contexts import CallbackContext, Context, ReadonlyContext

__all__ = ["CallbackContext", "Context", "ReadonlyContext"]
