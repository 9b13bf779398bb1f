"""A node that asks a person to approve it before it runs (`require_confirmation`), as ADK 2.13 does:
the node yields a RequestInput whose interrupt id is ``wf_tool_confirmation:<node path>`` and whose
answer is a ToolConfirmation. It is the workflow's input request (runtime.workflow.interrupts), so it
is an open request in the log (`chronicle pending`) that any process may answer after a restart;
the node then runs again (rerun_on_resume) and finds the answer in `ctx.resume_inputs`.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from pydantic import ConfigDict

from runtime.events.request_input import RequestInput
from runtime.tools.tool_confirmation import ToolConfirmation
from runtime.workflow.errors import WorkflowDataError

if TYPE_CHECKING:
    from runtime.workflow.context import Context

ConfirmationPolicy = Union[bool, Callable[..., Any]]

INTERRUPT_PREFIX = "wf_tool_confirmation:"
REJECTED = {"error": "This tool call is rejected."}
"""A rejected node's output (ADK's), whatever its output_schema says."""


def interrupt_id(node_path: str) -> str:
    return INTERRUPT_PREFIX + node_path


class _Answer(ToolConfirmation):
    """Represents a tool confirmation configuration."""

    # the answer's schema as the client sees it in the request: google-adk 2.13's (its title, its text)
    model_config = ConfigDict(title="ToolConfirmation")


def request(node_path: str, name: str, args: dict[str, Any], *, hint: Optional[str] = None,
            payload: Any = None) -> RequestInput:
    """The node's request; `hint` and `payload` are what a tool asked with (its
    `request_confirmation`), the hint being the request's message."""
    asked: dict[str, Any] = {"tool_name": name, "args": args}
    if payload is not None:
        asked["confirmation_payload"] = payload
    return RequestInput(
        interrupt_id=interrupt_id(node_path),
        message=hint or f"Please approve or reject the tool call {name}().",
        payload=asked,
        response_schema=_Answer,
    )


def answer(ctx: Context) -> Optional[ToolConfirmation]:
    """The person's answer for this node run, when the run follows one; else None."""
    response = ctx.resume_inputs.get(interrupt_id(ctx.node_path))
    if response is None:
        return None
    if not isinstance(response, dict):
        raise WorkflowDataError(f"A confirmation answer must be a ToolConfirmation object, got {type(response).__name__}.")
    ctx.tool_confirmation = ToolConfirmation.from_response_dict({k: v for k, v in response.items() if v is not None})
    return ctx.tool_confirmation


async def required(policy: ConfirmationPolicy, ctx: Context, args: dict[str, Any], node_input: Any) -> bool:
    """Whether this run needs approval: `policy` itself, or what it returns when called with the
    run's arguments it names (and `ctx`, `node_input`, or state values for its other parameters)."""
    if not callable(policy):
        return bool(policy)
    parameters = inspect.signature(policy).parameters
    call: dict[str, Any] = {}
    for name, parameter in parameters.items():
        if parameter.kind is parameter.VAR_KEYWORD:
            call.update({k: v for k, v in args.items() if k not in parameters})
        elif name in args:
            call[name] = args[name]
        elif name in ("ctx", "context", "tool_context"):
            call[name] = ctx
        elif name == "node_input":
            call[name] = node_input
        elif name in ctx.state:
            call[name] = ctx.state[name]
    decided = policy(**call)
    if inspect.isawaitable(decided):
        decided = await decided
    return bool(decided)
