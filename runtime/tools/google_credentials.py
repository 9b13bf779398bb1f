"""How a Google API tool authenticates (google-adk 2.13's BaseGoogleCredentialsConfig): ready
credentials shared by every user, an access token the app keeps in state, or an OAuth client
each user authorises. Exactly one of them."""

from __future__ import annotations

import os
from typing import Any, List, Optional

from pydantic import BaseModel, ConfigDict, PrivateAttr, model_validator


class BaseGoogleCredentialsConfig(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    credentials: Optional[Any] = None  # a google.auth Credentials used for every user
    external_access_token_key: Optional[str] = None  # state key holding a user's access token
    client_id: Optional[str] = None
    client_secret: Optional[str] = None
    scopes: Optional[List[str]] = None
    kms_key_name: Optional[str] = None

    _token_cache_key: Optional[str] = PrivateAttr(default=None)

    @model_validator(mode="after")
    def __post_init__(self) -> "BaseGoogleCredentialsConfig":
        if not self.kms_key_name:
            self.kms_key_name = os.environ.get("GOOGLE_CREDENTIAL_KMS_KEY")
        oauth = self.client_id or self.client_secret or self.scopes
        if self.credentials:
            if self.external_access_token_key or oauth:
                raise ValueError(
                    "If credentials are provided, external_access_token_key, client_id, client_secret, "
                    "and scopes must not be provided."
                )
            if _is_oauth_user_credentials(self.credentials):  # they carry their own client and scopes
                self.client_id = self.credentials.client_id
                self.client_secret = self.credentials.client_secret
                self.scopes = self.credentials.scopes
        elif self.external_access_token_key:
            if oauth:
                raise ValueError(
                    "If external_access_token_key is provided, client_id, client_secret, and scopes must not be provided."
                )
        elif not self.client_id or not self.client_secret:
            raise ValueError(
                "Must provide one of credentials, external_access_token_key, or client_id and client_secret pair."
            )
        return self


def _is_oauth_user_credentials(credentials: Any) -> bool:
    try:
        from google.oauth2.credentials import Credentials
    except ImportError:  # google-auth not installed: these cannot be OAuth user credentials
        return False
    return isinstance(credentials, Credentials)
