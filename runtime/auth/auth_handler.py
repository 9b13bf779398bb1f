"""Keeping secrets out of the log: redacted copies of auth configs, and where a running
invocation finds the credential the client sent (`temp:` state, which is never stored)."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

from domain.state import State
from runtime.auth.auth_credential import SECRET_FIELDS
from runtime.auth.auth_tool import AuthConfig

REDACTED = "**redacted**"
logger = logging.getLogger(__name__)


def auth_response_state_key(auth_config: AuthConfig) -> str:
    return State.TEMP_PREFIX + (auth_config.credential_key or "")


def redacted(value: Any) -> Any:
    """A JSON copy of `value` (a dict from model_dump) with every secret field's value replaced."""
    if isinstance(value, dict):
        return {
            k: (REDACTED if _snake(k) in SECRET_FIELDS and v is not None else redacted(v)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [redacted(v) for v in value]
    return value


def without_secrets(value: Any) -> Any:
    """A JSON copy of `value` without its secret fields (what google-adk sends a client that is
    asked for a credential)."""
    if isinstance(value, dict):
        return {k: without_secrets(v) for k, v in value.items() if _snake(k) not in SECRET_FIELDS}
    if isinstance(value, list):
        return [without_secrets(v) for v in value]
    return value


def credential_reference(auth_config: AuthConfig) -> dict[str, Any]:
    """What the log records of a credential the client supplied: its key and a digest."""
    credential = auth_config.exchanged_auth_credential
    dumped = credential.model_dump(mode="json", by_alias=True, exclude_none=True) if credential else {}
    digest = hashlib.sha256(json.dumps(dumped, sort_keys=True).encode()).hexdigest()
    return {
        "credentialKey": auth_config.credential_key,
        "authType": dumped.get("authType"),
        "sha256": digest,
        "storedIn": "credential_service",
    }


def _with_pkce(oauth2: Any) -> None:
    """A public client (no secret) proves its sign-in with PKCE (S256), as google-adk 2.13's does:
    a code verifier of 48 characters unless the credential has one."""
    from runtime.auth.oauth2_credential_util import random_token

    method = oauth2.code_challenge_method
    if not oauth2.client_secret and not method:
        logger.warning("OAuth2 client_secret is not set for client_id %s; treating client as public.", oauth2.client_id)
        method = "S256"
    if method is None:
        return
    if method != "S256":
        raise ValueError(f"Unsupported code_challenge_method: {method}. Only 'S256' is supported.")
    oauth2.code_verifier = oauth2.code_verifier or random_token(48)
    oauth2.code_challenge_method = method


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


class AuthHandler:
    """Reads the credential the client sent for one AuthConfig (google.adk.auth.auth_handler)."""

    def __init__(self, auth_config: AuthConfig):
        self.auth_config = auth_config

    def generate_auth_request(self) -> AuthConfig:
        """What the client is asked for (google-adk 2.13's): the config as it is, except that an
        OAuth2/OpenID Connect request carries the sign-in URI to open (its exchanged credential:
        the raw one with `auth_uri` and `state`). Secrets are left to the caller to remove."""
        from runtime.auth.auth_schemes import OAUTH_SCHEME_TYPES, scheme_type
        from runtime.auth.oauth2_credential_util import authorization_uri

        config = self.auth_config
        if scheme_type(config.auth_scheme) not in OAUTH_SCHEME_TYPES:
            return config.model_copy(deep=True)
        exchanged = config.exchanged_auth_credential
        if exchanged is not None and exchanged.oauth2 is not None and exchanged.oauth2.auth_uri:
            return config.model_copy(deep=True)
        raw = config.raw_auth_credential
        if raw is None or raw.oauth2 is None:
            raise ValueError(f"Auth Scheme {scheme_type(config.auth_scheme)} requires oauth2 in auth_credential.")
        request = raw.model_copy(deep=True)
        if not raw.oauth2.auth_uri:
            if not raw.oauth2.client_id:
                raise ValueError(
                    f"Auth Scheme {scheme_type(config.auth_scheme)} requires client_id in auth_credential.oauth2.")
            _with_pkce(request.oauth2)
            request.oauth2.auth_uri, request.oauth2.state = authorization_uri(config.auth_scheme, request.oauth2)
        return config.model_copy(update={"exchanged_auth_credential": request}, deep=True)

    def get_auth_response(self, state: Any) -> Any:
        """The client's credential for this invocation (an AuthCredential), or None."""
        from runtime.auth.auth_credential import AuthCredential

        value = state.get(auth_response_state_key(self.auth_config))
        if value is None:
            return None
        return value if isinstance(value, AuthCredential) else AuthCredential.model_validate(value)
