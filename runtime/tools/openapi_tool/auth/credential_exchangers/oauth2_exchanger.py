"""OAuth2 / OpenID Connect: an access token becomes a bearer credential, refreshed first when it
has expired and a refresh token allows."""

from __future__ import annotations

import logging
from typing import Any, Optional

from runtime.auth.auth_credential import AuthCredential, bearer_credential
from runtime.auth.auth_schemes import OAUTH_SCHEME_TYPES, scheme_type
from runtime.auth.oauth2_credential_util import is_token_expired, refresh_access_token
from runtime.tools.openapi_tool.auth.credential_exchangers.base_credential_exchanger import BaseAuthCredentialExchanger

logger = logging.getLogger(__name__)


class OAuth2CredentialExchanger(BaseAuthCredentialExchanger):
    def _check_scheme_credential_type(self, auth_scheme: Any, auth_credential: Optional[AuthCredential] = None) -> None:
        if not auth_credential:
            raise ValueError("auth_credential is empty. Please create AuthCredential using OAuth2Auth.")
        if scheme_type(auth_scheme) not in OAUTH_SCHEME_TYPES:
            raise ValueError("Invalid security scheme, expect AuthSchemeType.openIdConnect or "
                             f"AuthSchemeType.oauth2 auth scheme, but got {auth_scheme.type_}")
        if not auth_credential.oauth2 and not auth_credential.http:
            raise ValueError("auth_credential is not configured with oauth2. Please create AuthCredential "
                             "and set OAuth2Auth.")

    def generate_auth_token(self, auth_credential: Optional[AuthCredential] = None) -> AuthCredential:
        """The access token as a bearer credential; the credential as given when it has none."""
        token = auth_credential.oauth2.access_token
        if not token:
            return auth_credential
        return bearer_credential(token)

    def _is_token_expired(self, auth_credential: AuthCredential) -> bool:
        return is_token_expired(auth_credential)

    def exchange_credential(self, auth_scheme: Any, auth_credential: Optional[AuthCredential] = None
                            ) -> Optional[AuthCredential]:
        self._check_scheme_credential_type(auth_scheme, auth_credential)
        if auth_credential.http:
            return auth_credential
        if not auth_credential.oauth2.access_token:
            return None  # the user has not authorized yet
        if auth_credential.oauth2.refresh_token and self._is_token_expired(auth_credential):
            if not refresh_access_token(auth_scheme, auth_credential):
                logger.warning("Failed to refresh OAuth2 tokens, falling back to the existing token")
        return self.generate_auth_token(auth_credential)
