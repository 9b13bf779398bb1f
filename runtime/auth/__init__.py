"""Credentials: ADK's AuthConfig/AuthCredential shapes and the credential services that keep
secrets outside the event log."""

from runtime.auth.auth_credential import (
    AuthCredential,
    AuthCredentialTypes,
    HttpAuth,
    HttpCredentials,
    OAuth2Auth,
    ServiceAccount,
    ServiceAccountCredential,
)
from runtime.auth.auth_schemes import AuthScheme, AuthSchemeType, CustomAuthScheme, OpenIdConnectWithConfig
from runtime.auth.auth_tool import AuthConfig, AuthToolArguments
from runtime.auth.credential_service import (
    BaseCredentialService,
    InMemoryCredentialService,
    StoreCredentialService,
    credential_service_from_url,
)

__all__ = [
    "AuthConfig",
    "AuthCredential",
    "AuthCredentialTypes",
    "AuthScheme",
    "AuthSchemeType",
    "AuthToolArguments",
    "BaseCredentialService",
    "CustomAuthScheme",
    "HttpAuth",
    "HttpCredentials",
    "InMemoryCredentialService",
    "OAuth2Auth",
    "OpenIdConnectWithConfig",
    "ServiceAccount",
    "ServiceAccountCredential",
    "StoreCredentialService",
    "credential_service_from_url",
]
