"""Picks the exchanger for a credential's type (OAuth2 and OIDC, service account); other credentials
(an API key, HTTP credentials) are ready as they are."""

from __future__ import annotations

from typing import Any, Dict, Optional, Type

from runtime.auth.auth_credential import AuthCredential, AuthCredentialTypes
from runtime.tools.openapi_tool.auth.credential_exchangers.base_credential_exchanger import BaseAuthCredentialExchanger
from runtime.tools.openapi_tool.auth.credential_exchangers.oauth2_exchanger import OAuth2CredentialExchanger
from runtime.tools.openapi_tool.auth.credential_exchangers.service_account_exchanger import (
    ServiceAccountCredentialExchanger,
)


class AutoAuthCredentialExchanger(BaseAuthCredentialExchanger):
    def __init__(self, custom_exchangers: Optional[Dict[str, Type[BaseAuthCredentialExchanger]]] = None):
        """`custom_exchangers` adds or replaces the exchanger class for a credential type."""
        self.exchangers: Dict[Any, Type[BaseAuthCredentialExchanger]] = {
            AuthCredentialTypes.OAUTH2: OAuth2CredentialExchanger,
            AuthCredentialTypes.OPEN_ID_CONNECT: OAuth2CredentialExchanger,
            AuthCredentialTypes.SERVICE_ACCOUNT: ServiceAccountCredentialExchanger,
        }
        self.exchangers.update(custom_exchangers or {})

    def exchange_credential(self, auth_scheme: Any, auth_credential: Optional[AuthCredential] = None
                            ) -> Optional[AuthCredential]:
        if not auth_credential:
            return None
        exchanger = self.exchangers.get(auth_credential.auth_type)
        if exchanger is None:
            return auth_credential
        return exchanger().exchange_credential(auth_scheme, auth_credential)
