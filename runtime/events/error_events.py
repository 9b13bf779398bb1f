"""The event that records an invocation's failure (ADK 2.13's shape).

When an exception escapes a root LlmAgent's run (no error callback recovered it), ADK 2.13 runs
that agent as a workflow node, and the node runner yields one content-less event before the
exception is raised again: `error_code` is the exception's class name (or its `status` when that is
a string, as google-genai's API errors carry one) and `error_message` its text. The Runner
appends it like any event, so the failure is a fact in the log, and, having no content, it never
reaches a later model request. Other roots (a SequentialAgent, a custom BaseAgent) run outside
that node runner, so ADK records nothing for them, and neither does Chronicle. Pure: it builds
the event, the caller appends it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from domain.events import Event

if TYPE_CHECKING:
    from runtime.agents.base_agent import BaseAgent
    from runtime.invocation_context import InvocationContext


def is_failure_record(event: Event) -> bool:
    """The content-less event that records a failure: no reply, nothing for a model to read."""
    return bool(event.error_code) and not (event.content and event.content.parts)


def error_code_of(error: BaseException) -> str:
    status = getattr(error, "status", None)
    return status if isinstance(status, str) else type(error).__name__


def invocation_error_event(root: BaseAgent, ctx: InvocationContext, error: Exception) -> Optional[Event]:
    """The event that records `error` escaping the invocation `ctx`, authored by the agent it
    started with; None when `root`'s kind of agent records no failure in ADK."""
    from runtime.agents.llm_agent import LlmAgent

    if not isinstance(root, LlmAgent):
        return None
    return Event(
        invocation_id=ctx.invocation_id,
        author=ctx.agent.name,
        branch=ctx.branch,
        error_code=error_code_of(error),
        error_message=str(error),
    )
