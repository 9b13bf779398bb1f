"""Credentials with ADK's shapes and camelCase wire names (google.adk.auth.auth_credential)."""

from __future__ import annotations

from enum import Enum
from typing import Optional

from pydantic import BaseModel, ConfigDict, Field, alias_generators, model_validator

SECRET_FIELDS = frozenset(
    {
        "api_key", "password", "token", "client_secret", "auth_code", "access_token", "refresh_token",
        "id_token", "code_verifier", "private_key", "private_key_id", "auth_response_uri",
    }
)
"""Fields that hold secrets: never written to the log (see runtime.auth.auth_handler.redacted)."""


class BaseModelWithConfig(BaseModel, hide_input_in_errors=True):
    model_config = ConfigDict(extra="allow", alias_generator=alias_generators.to_camel, populate_by_name=True)


class AuthCredentialTypes(str, Enum):
    API_KEY = "apiKey"
    HTTP = "http"
    OAUTH2 = "oauth2"
    OPEN_ID_CONNECT = "openIdConnect"
    SERVICE_ACCOUNT = "serviceAccount"


class HttpCredentials(BaseModelWithConfig):
    username: Optional[str] = None
    password: Optional[str] = Field(None, repr=False)
    token: Optional[str] = Field(None, repr=False)


class HttpAuth(BaseModelWithConfig):
    scheme: str
    credentials: HttpCredentials
    additional_headers: Optional[dict[str, str]] = Field(None, repr=False)


class OAuth2Auth(BaseModelWithConfig):
    client_id: Optional[str] = None
    client_secret: Optional[str] = Field(None, repr=False)
    auth_uri: Optional[str] = None
    nonce: Optional[str] = None
    state: Optional[str] = None
    redirect_uri: Optional[str] = None
    auth_response_uri: Optional[str] = Field(None, repr=False)
    auth_code: Optional[str] = Field(None, repr=False)
    access_token: Optional[str] = Field(None, repr=False)
    refresh_token: Optional[str] = Field(None, repr=False)
    id_token: Optional[str] = Field(None, repr=False)
    expires_at: Optional[int] = None
    expires_in: Optional[int] = None
    audience: Optional[str] = None
    prompt: Optional[str] = None
    code_verifier: Optional[str] = Field(None, repr=False)
    code_challenge_method: Optional[str] = None
    token_endpoint_auth_method: Optional[str] = "client_secret_basic"  # OAuth2's default, and ADK's


class ServiceAccountCredential(BaseModelWithConfig):
    type_: str = Field("", alias="type")
    project_id: str
    private_key_id: str = Field(repr=False)
    private_key: str = Field(repr=False)
    client_email: str
    client_id: str
    auth_uri: str
    token_uri: str
    auth_provider_x509_cert_url: str = ""
    client_x509_cert_url: str = ""
    universe_domain: str = ""


class ServiceAccount(BaseModelWithConfig):
    service_account_credential: Optional[ServiceAccountCredential] = None
    scopes: Optional[list[str]] = None
    use_default_credential: Optional[bool] = False
    use_id_token: Optional[bool] = False
    audience: Optional[str] = None

    @model_validator(mode="after")
    def _complete(self) -> "ServiceAccount":
        # google-adk 2.13's rules and words.
        if not self.use_default_credential and self.service_account_credential is None:
            raise ValueError("service_account_credential is required when use_default_credential is False.")
        if self.use_id_token and not self.audience:
            raise ValueError("audience is required when use_id_token is True. Set it to the URL of the "
                             "target service (e.g. 'https://my-service.run.app').")
        return self


class AuthCredential(BaseModelWithConfig):
    """A credential: an API key, HTTP credentials, OAuth2 tokens or a service account."""

    auth_type: AuthCredentialTypes
    resource_ref: Optional[str] = None
    api_key: Optional[str] = Field(None, repr=False)
    http: Optional[HttpAuth] = None
    service_account: Optional[ServiceAccount] = None
    oauth2: Optional[OAuth2Auth] = None


def bearer_credential(token: str, additional_headers: Optional[dict[str, str]] = None) -> AuthCredential:
    """An HTTP bearer-token credential: what OAuth2, OIDC and service accounts exchange into."""
    return AuthCredential(auth_type=AuthCredentialTypes.HTTP, http=HttpAuth(
        scheme="bearer", credentials=HttpCredentials(token=token), additional_headers=additional_headers))
