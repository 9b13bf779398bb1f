"""OAuth2CredentialRefresher (google.adk.auth.refresher): refreshes an OAuth2/OIDC credential whose
access token has expired."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Optional

from runtime.auth.auth_credential import AuthCredential
from runtime.auth.oauth2_credential_util import is_token_expired, refresh_access_token

logger = logging.getLogger(__name__)


class OAuth2CredentialRefresher:
    async def is_refresh_needed(self, auth_credential: AuthCredential, auth_scheme: Optional[Any] = None) -> bool:
        return bool(auth_credential.oauth2) and is_token_expired(auth_credential)

    async def refresh(self, auth_credential: AuthCredential, auth_scheme: Optional[Any] = None) -> AuthCredential:
        """A refreshed copy of the credential; the credential as it was when refreshing fails."""
        if not auth_credential.oauth2 or auth_scheme is None:
            return auth_credential
        refreshed = auth_credential.model_copy(deep=True)
        if await asyncio.to_thread(refresh_access_token, auth_scheme, refreshed):
            return refreshed
        logger.warning("OAuth2 token refresh failed; keeping the existing token")
        return auth_credential
