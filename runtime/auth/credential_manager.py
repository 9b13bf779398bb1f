"""CredentialManager (google.adk.auth.credential_manager): the credential a tool can use now, from
(in order) what the client just sent, what the credential service kept (refreshed if its OAuth2
token expired), or the tool's own credential when it needs no user (an API key, HTTP credentials,
an OAuth2 access token). None means the client must be asked: `request_credential`."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Optional

from runtime.auth.auth_credential import AuthCredential, AuthCredentialTypes
from runtime.auth.auth_tool import AuthConfig
from runtime.auth.oauth2_credential_util import (
    client_credentials_grant,
    has_unredeemed_code,
    redeem_authorization_code,
    uses_client_credentials,
)
from runtime.auth.refresher.oauth2_credential_refresher import OAuth2CredentialRefresher

logger = logging.getLogger(__name__)


def _usable(credential: AuthCredential) -> bool:
    if credential.auth_type in (AuthCredentialTypes.OAUTH2, AuthCredentialTypes.OPEN_ID_CONNECT):
        return bool(credential.oauth2 and credential.oauth2.access_token)
    if credential.auth_type == AuthCredentialTypes.API_KEY:
        return bool(credential.api_key)
    return credential.auth_type == AuthCredentialTypes.HTTP and credential.http is not None


class CredentialManager:
    def __init__(self, auth_config: AuthConfig):
        self._auth_config = auth_config

    async def request_credential(self, tool_context: Any) -> None:
        tool_context.request_credential(self._auth_config)

    async def get_auth_credential(self, tool_context: Any) -> Optional[AuthCredential]:
        config = self._auth_config
        supplied = tool_context.get_auth_response(config)
        if supplied is not None and has_unredeemed_code(supplied):
            supplied = await self._redeemed(supplied, tool_context, supplied=True)
        if supplied is not None and _usable(supplied):
            return supplied  # the runtime has already kept it in the credential service
        kept = await self._load(tool_context)
        if kept is not None and has_unredeemed_code(kept):
            kept = await self._redeemed(kept, tool_context)
        if kept is not None and _usable(kept):
            return await self._refreshed(kept, tool_context)
        raw = config.raw_auth_credential
        if raw is not None and raw.oauth2 is not None and not raw.oauth2.access_token \
                and uses_client_credentials(config.auth_scheme):
            return await self._client_token(raw, tool_context)
        return raw if raw is not None and _usable(raw) else None

    async def _client_token(self, raw: AuthCredential, tool_context: Any) -> Optional[AuthCredential]:
        """Tokens the configured client gets as itself (no person asked), kept for next time."""
        credential = raw.model_copy(deep=True)
        if not await asyncio.to_thread(client_credentials_grant, self._auth_config.auth_scheme, credential):
            logger.warning("The token endpoint refused the OAuth2 client-credentials grant.")
            return None
        await self._save(credential, tool_context)
        return credential

    async def _load(self, tool_context: Any) -> Optional[AuthCredential]:
        from runtime.contexts import ServiceNotConfiguredError

        try:
            return await tool_context.load_credential(self._auth_config)
        except ServiceNotConfiguredError:
            return None

    async def _redeemed(self, credential: AuthCredential, tool_context: Any, supplied: bool = False
                        ) -> Optional[AuthCredential]:
        """The OAuth2 answer's authorization code exchanged for tokens, and kept (in the credential
        service, and for this invocation where the answer was found); None when the token
        endpoint refused it: a code never redeemed is useless, so the user is asked again (ADK)."""
        from runtime.auth.auth_handler import auth_response_state_key

        redeemed = credential.model_copy(deep=True)
        if not await asyncio.to_thread(redeem_authorization_code, self._auth_config, redeemed):
            logger.warning("The OAuth2 authorization code could not be exchanged for a token; asking again.")
            return None
        if supplied:
            tool_context.state[auth_response_state_key(self._auth_config)] = redeemed.model_dump(
                mode="json", by_alias=True, exclude_none=True)
        await self._save(redeemed, tool_context)
        return redeemed

    async def _save(self, credential: AuthCredential, tool_context: Any) -> None:
        from runtime.contexts import ServiceNotConfiguredError

        try:
            kept = self._auth_config.model_copy(update={"exchanged_auth_credential": credential})
            await tool_context.save_credential(kept)
        except ServiceNotConfiguredError:
            pass  # nowhere to keep it beyond this invocation

    async def _refreshed(self, credential: AuthCredential, tool_context: Any) -> AuthCredential:
        refresher = OAuth2CredentialRefresher()
        if credential.oauth2 is None or not await refresher.is_refresh_needed(credential):
            return credential
        refreshed = await refresher.refresh(credential, self._auth_config.auth_scheme)
        if refreshed is not credential:
            await self._save(refreshed, tool_context)
        return refreshed
