"""`auth_config` on a function node (google-adk 2.13's): before its function runs, the node asks
the client for a credential (`adk_request_credential`, id `wf_auth:<node path>`) unless this
invocation has one, and waits. The client's answer (an AuthConfig, an AuthCredential, or an API
key as text) is kept by the credential service, never the log (the stored answer is a reference:
runtime.agents.human_requests); the node then runs again with it in `temp:` state, where
`ctx.get_auth_response(auth_config)` finds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from domain.events import Event
from projections.pending import REQUEST_CREDENTIAL
from runtime.auth.auth_credential import AuthCredential, AuthCredentialTypes
from runtime.auth.auth_handler import auth_response_state_key, without_secrets
from runtime.auth.auth_tool import AuthConfig, AuthToolArguments
from runtime.workflow.errors import WorkflowDataError

if TYPE_CHECKING:
    from runtime.workflow.context import Context


def interrupt_id(node_path: str) -> str:
    return f"wf_auth:{node_path}"


async def gate(ctx: Context, auth_config: AuthConfig) -> Optional[Event]:
    """The credential request the node yields before its function runs, or None when the
    credential is there (answered now, or earlier in this invocation)."""
    if interrupt_id(ctx.node_path) in ctx.resume_inputs:
        credential = await ctx.load_credential(auth_config)
        if credential is not None:
            if await _exchanged(auth_config, credential):
                await ctx.save_credential(auth_config.model_copy(update={"exchanged_auth_credential": credential}))
            shown = credential.model_dump(mode="json", by_alias=True, exclude_none=True)
            shown.get("oauth2", {}).pop("clientSecret", None)  # as ADK: state is the client's to read
            ctx.invocation_context.session.state[auth_response_state_key(auth_config)] = shown
            return None
    if ctx.get_auth_response(auth_config) is not None:
        return None
    return request_event(auth_config, interrupt_id(ctx.node_path))


async def _exchanged(auth_config: AuthConfig, credential: AuthCredential) -> bool:
    """Exchanges an OAuth2 answer's authorization code for tokens at the scheme's token endpoint,
    the client being the node's (as ADK does before the node runs again). True if it did."""
    import asyncio

    from runtime.auth.oauth2_credential_util import authorization_code, redeem_authorization_code

    if credential.oauth2 is None or credential.oauth2.access_token or not authorization_code(credential):
        return False
    if not await asyncio.to_thread(redeem_authorization_code, auth_config, credential):
        raise WorkflowDataError("The OAuth2 authorization code could not be exchanged for a token at the token endpoint.")
    return True


def requested_config(events: list[Event], interrupt: str) -> Optional[AuthConfig]:
    """The AuthConfig the request `interrupt` asked for (without its secrets), from the log."""
    for event in reversed(events):
        for call in event.get_function_calls():
            if call.id == interrupt and call.name == REQUEST_CREDENTIAL:
                return AuthConfig.model_validate((call.args or {}).get("authConfig") or {})
    return None


def request_event(auth_config: AuthConfig, interrupt: str) -> Event:
    """ADK's request: the auth config without its secrets, and a message for the person."""
    args = without_secrets(
        AuthToolArguments(function_call_id=interrupt, auth_config=auth_config).model_dump(
            mode="json", by_alias=True, exclude_none=True
        )
    )
    args["message"] = _message(auth_config)
    call = types.FunctionCall(id=interrupt, name=REQUEST_CREDENTIAL, args=args)
    return Event(content=types.Content(role="model", parts=[types.Part(function_call=call)]), long_running_tool_ids={interrupt})


def _message(auth_config: AuthConfig) -> str:
    raw = auth_config.raw_auth_credential
    if raw is None:
        return "Please provide your authentication credentials."
    if raw.auth_type == AuthCredentialTypes.API_KEY:
        return f"Please provide your API key for {getattr(auth_config.auth_scheme, 'name', 'API key')}."
    if raw.auth_type in (AuthCredentialTypes.OAUTH2, AuthCredentialTypes.OPEN_ID_CONNECT):
        return "Please complete the authentication flow."
    return "Please provide your authentication credentials."
