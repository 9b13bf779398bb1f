"""Keeping secrets out of the log: redacted copies of auth configs, and where a running
invocation finds the credential the client sent (`temp:` state, which is never stored)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from domain.state import State
from runtime.auth.auth_credential import SECRET_FIELDS
from runtime.auth.auth_tool import AuthConfig

REDACTED = "**redacted**"


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


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


class AuthHandler:
    """Reads the credential the client sent for one AuthConfig (google.adk.auth.auth_handler)."""

    def __init__(self, auth_config: AuthConfig):
        self.auth_config = auth_config

    def get_auth_response(self, state: Any) -> Any:
        """The client's credential for this invocation (an AuthCredential), or None."""
        from runtime.auth.auth_credential import AuthCredential

        value = state.get(auth_response_state_key(self.auth_config))
        if value is None:
            return None
        return value if isinstance(value, AuthCredential) else AuthCredential.model_validate(value)
