from runtime.tools.openapi_tool.auth.credential_exchangers.auto_auth_credential_exchanger import (
    AutoAuthCredentialExchanger,
)
from runtime.tools.openapi_tool.auth.credential_exchangers.base_credential_exchanger import BaseAuthCredentialExchanger
from runtime.tools.openapi_tool.auth.credential_exchangers.oauth2_exchanger import OAuth2CredentialExchanger
from runtime.tools.openapi_tool.auth.credential_exchangers.service_account_exchanger import (
    ServiceAccountCredentialExchanger,
)

__all__ = [
    "AutoAuthCredentialExchanger",
    "BaseAuthCredentialExchanger",
    "OAuth2CredentialExchanger",
    "ServiceAccountCredentialExchanger",
]
