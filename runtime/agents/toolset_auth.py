"""Credentials for an agent's toolsets, resolved before its tools are listed (google-adk 2.13's
`toolset_auth` step).

Before each model call, every toolset in `agent.tools` that names an AuthConfig
(`BaseToolset.get_auth_config`, e.g. `McpToolset(auth_scheme=...)`) gets its credential: the one the
client just supplied, the one the credential service keeps (refreshed if its token expired), or
the toolset's own when it needs no person. It is held for this invocation only
(`ctx.credential_by_key`, where `ReadonlyContext.get_credential` finds it), never in the log.
A toolset without one makes the agent ask the client (`adk_request_credential`, answering
`_adk_toolset_auth_<toolset class>`) and end the invocation: the request is a pause in the log,
which any process can answer. The answer goes to the credential service
(runtime.agents.human_requests.accept_answers); the next model call finds it there.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from domain.events import Event
from projections.pending import REQUEST_CREDENTIAL
from runtime.auth.auth_handler import AuthHandler, without_secrets
from runtime.auth.auth_tool import AuthConfig, AuthToolArguments
from runtime.auth.credential_manager import CredentialManager
from runtime.tools.base_toolset import BaseToolset

if TYPE_CHECKING:
    from runtime.invocation_context import InvocationContext

logger = logging.getLogger(__name__)

TOOLSET_AUTH_PREFIX = "_adk_toolset_auth_"
"""How a toolset's request names what it is for: no function call waits on it."""


async def resolve_toolset_auth(ctx: InvocationContext, agent: Any) -> Optional[Event]:
    """Resolves the credentials of the agent's toolsets into `ctx.credential_by_key`; returns the
    event asking the client for those it could not resolve (None when none is missing)."""
    from runtime.contexts import Context

    context = Context(ctx)
    missing: dict[str, AuthConfig] = {}
    for toolset in agent.tools or ():
        config = toolset.get_auth_config() if isinstance(toolset, BaseToolset) else None
        if config is None:
            continue
        config = config.model_copy(deep=True)
        try:
            credential = await CredentialManager(config).get_auth_credential(context)
        except ValueError as error:  # as ADK: the toolset may still work without one
            logger.warning("Failed to get auth credential for toolset %s: %s", type(toolset).__name__, error)
            credential = None
        if credential:
            ctx.credential_by_key[config.credential_key] = credential
        else:
            missing[f"{TOOLSET_AUTH_PREFIX}{type(toolset).__name__}"] = await _requested(config, context)
    return _request_event(ctx, agent.name, missing) if missing else None


async def _requested(config: AuthConfig, context: Any) -> AuthConfig:
    """What the client is asked for (ADK's: an OAuth2 sign-in URI included). A PKCE code verifier
    stays here: the credential service keeps it as the pending sign-in, which the answer
    completes (runtime.agents.human_requests); the request in the log never holds it."""
    from runtime.contexts import ServiceNotConfiguredError

    request = AuthHandler(config).generate_auth_request()
    pending = request.exchanged_auth_credential
    if pending is not None and pending.oauth2 is not None and pending.oauth2.code_verifier:
        try:
            await context.save_credential(request)
        except ServiceNotConfiguredError:
            logger.warning("A PKCE sign-in needs a credential service to keep its code verifier; the "
                           "authorization code will not be redeemable.")
    return request


def _request_event(ctx: InvocationContext, author: str, missing: dict[str, AuthConfig]) -> Event:
    """One `adk_request_credential` call per credential key (ADK's), without any secret."""
    from runtime.agents.tool_calls import new_function_call_id

    parts: list[types.Part] = []
    asked: set[Optional[str]] = set()
    for toolset_id, config in missing.items():
        if config.credential_key in asked:
            continue
        asked.add(config.credential_key)
        args = AuthToolArguments(function_call_id=toolset_id, auth_config=config)
        dumped = without_secrets(args.model_dump(mode="json", by_alias=True, exclude_none=True))
        call = types.FunctionCall(id=new_function_call_id(), name=REQUEST_CREDENTIAL, args=dumped)
        parts.append(types.Part(function_call=call))
    return Event(
        invocation_id=ctx.invocation_id,
        author=author,
        branch=ctx.branch,
        content=types.Content(parts=parts),
        long_running_tool_ids={p.function_call.id for p in parts},
    )
