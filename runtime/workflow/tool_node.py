"""ToolNode: a tool (a BaseTool, e.g. a FunctionTool) placed in a workflow's edges, as in ADK 2.13.

The node's input is the call's arguments: a dict, None (no arguments), a JSON object as text, or a
single value for a tool with one parameter (or one required parameter); a required parameter
missing there is read from state. The tool runs with the node's context as its ToolContext, so
its state changes go with the node's completed fact. A tool that requires confirmation asks
first, as a function node does (runtime.workflow.confirmation).
"""

from __future__ import annotations

import json
import uuid
from typing import Any, AsyncGenerator, Optional

from google.genai import types
from pydantic import BaseModel

from runtime.auth.auth_tool import AuthConfig
from runtime.workflow import confirmation, node_auth
from runtime.workflow.base_node import BaseNode
from runtime.workflow.context import Context
from runtime.workflow.errors import WorkflowDataError
from runtime.workflow.facts import as_json


class ToolNode(BaseNode):
    tool: Any
    rerun_on_resume: bool = True  # a call paused for confirmation runs once it is approved

    def __init__(self, /, *, tool: Any, **data: Any) -> None:
        data.setdefault("name", tool.name)
        data.setdefault("description", getattr(tool, "description", "") or "")
        super().__init__(tool=tool, **data)

    def exempt_from_output_schema(self, value: Any) -> bool:
        return value == confirmation.REJECTED

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        # As ADK's tool pipeline: a person's answer is on ctx.tool_confirmation before any callback,
        # the confirmation gate runs after the plugins' before-tool callback, and a confirmation the
        # gate or the tool itself asked for is the node's request (the answer runs it again).
        args = self._arguments(ctx, node_input)
        confirmation.answer(ctx)
        ctx.function_call_id = uuid.uuid4().hex  # as ADK: the call a tool's requests are keyed by
        await self._take_answered_credential(ctx)
        plugins = ctx.invocation_context.plugin_manager
        result = await plugins.run_before_tool_callback(tool=self.tool, tool_args=args, tool_context=ctx)
        if result is None:
            try:
                result = await self._gate(ctx, args)
                if result is None:
                    result = await self.tool.run_async(args=args, tool_context=ctx)
            except Exception as error:  # noqa: BLE001 - a plugin may answer it (ADK's on_tool_error_callback)
                ctx.actions.requested_tool_confirmations.pop(ctx.function_call_id, None)  # the failure is the answer
                ctx.actions.requested_auth_configs.pop(ctx.function_call_id, None)
                result = await plugins.run_on_tool_error_callback(tool=self.tool, tool_args=args, tool_context=ctx, error=error)
                if result is None:
                    raise
            asked = ctx.actions.requested_tool_confirmations.pop(ctx.function_call_id, None)
            if asked is not None:  # a person must confirm: the node waits (as ADK)
                yield confirmation.request(ctx.node_path, self.name, as_json(args), hint=asked.hint or None,
                                           payload=asked.payload)
                return
            requested = ctx.actions.requested_auth_configs.pop(ctx.function_call_id, None)
            if requested is not None:  # the tool asked for a credential: the node waits for it (as ADK)
                yield node_auth.request_event(requested, node_auth.interrupt_id(ctx.node_path))
                return
        after = await plugins.run_after_tool_callback(tool=self.tool, tool_args=args, tool_context=ctx, result=result)
        yield after if after is not None else result

    async def _gate(self, ctx: Context, args: dict[str, Any]) -> Optional[dict[str, str]]:
        """ADK's confirmation gate for a tool that requires confirmation: asks (the call is then
        answered by the request), or answers a rejected call; None lets the call run."""
        if await self.tool.check_require_confirmation(args, ctx) is not True:
            return None
        if ctx.tool_confirmation is None:
            ctx.request_confirmation(hint=(
                f"Please approve or reject the tool call {self.tool.name}() by responding with a FunctionResponse "
                "with an expected ToolConfirmation payload."
            ))
            return {"error": "This tool call requires confirmation, please approve or reject."}
        return None if ctx.tool_confirmation.confirmed else confirmation.REJECTED

    async def _take_answered_credential(self, ctx: Context) -> None:
        """A rerun after the client answered the tool's credential request: the credential (kept by
        the credential service) goes where the tool's `get_auth_response` finds it."""
        interrupt = node_auth.interrupt_id(ctx.node_path)
        if interrupt not in ctx.resume_inputs:
            return
        config = tool_auth_config(self.tool) or node_auth.requested_config(ctx.invocation_context.session.events, interrupt)
        if config is None:
            raise WorkflowDataError(f"Cannot resume auth for tool node {ctx.node_path}: no AuthConfig for {interrupt}.")
        await node_auth.gate(ctx, config)

    def _arguments(self, ctx: Context, node_input: Any) -> dict[str, Any]:
        args = node_input
        if isinstance(args, types.Content):
            args = "".join(p.text or "" for p in args.parts or [])
        if isinstance(args, BaseModel):
            args = args.model_dump()
        elif isinstance(args, str):
            args = args.strip() or None
            if args is not None:
                try:
                    parsed = json.loads(args)
                except json.JSONDecodeError:
                    parsed = None
                args = parsed if isinstance(parsed, dict) else args
        declared, required = self._parameters()
        if args is None:
            args = {}
        elif isinstance(args, dict):
            args = dict(args)
        elif len(declared) == 1 or len(required) == 1:
            args = {(declared if len(declared) == 1 else required)[0]: args}
        else:
            raise WorkflowDataError(
                f"The input of tool node {self.name!r} must be a dict of the tool's arguments (or None), "
                f"got {type(args).__name__}: {args!r}."
            )
        for name in required:
            if name not in args and name in ctx.state:
                args[name] = ctx.state[name]
        return args

    def _parameters(self) -> tuple[list[str], list[str]]:
        """The tool's parameter names and its required ones, from its declaration."""
        declaration = self.tool._get_declaration()
        schema = getattr(declaration, "parameters_json_schema", None) or getattr(declaration, "parameters", None)
        if isinstance(schema, dict):
            return list(schema.get("properties") or ()), list(schema.get("required") or ())
        if schema is not None:
            return list(schema.properties or ()), list(schema.required or ())
        return [], []


def tool_auth_config(tool: Any) -> Optional[AuthConfig]:
    """The AuthConfig a tool carries (its own, or its credential manager's), as ADK looks for it."""
    for holder in (tool, getattr(tool, "_credentials_manager", None)):
        config = getattr(holder, "_auth_config", None)
        if isinstance(config, AuthConfig):
            return config
    return None
