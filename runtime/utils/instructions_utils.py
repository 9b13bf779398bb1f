"""google-adk's `utils.instructions_utils`: `{key}` templating from a context's state and artifacts.
The rule lives in runtime.agents.instructions; this is its ADK-shaped door (a ReadonlyContext)."""

from __future__ import annotations

from typing import Any

from runtime.agents import instructions


async def inject_session_state(template: str, readonly_context: Any) -> str:
    """``template`` with ``{key}``, ``{key?}`` and ``{artifact.name}`` filled in for the context's
    invocation, as an LlmAgent's instruction is."""
    return await instructions.inject_session_state(template, readonly_context._invocation_context)
