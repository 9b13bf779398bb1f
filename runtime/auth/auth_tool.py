"""AuthConfig: what a tool asks the client for (google.adk.auth.auth_tool), camelCase on the wire."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Optional

from pydantic import BaseModel, field_validator

from runtime.auth.auth_credential import AuthCredential, BaseModelWithConfig
from runtime.auth.auth_schemes import as_auth_scheme, scheme_type


class AuthConfig(BaseModelWithConfig):
    auth_scheme: Any
    """An AuthScheme (or a FastAPI OpenAPI security-scheme model); a dict becomes an AuthScheme."""
    raw_auth_credential: Optional[AuthCredential] = None
    exchanged_auth_credential: Optional[AuthCredential] = None
    """Filled in by the client (an API key, a token, or the OAuth2 response)."""
    credential_key: Optional[str] = None
    """Where the credential service keeps the credential; derived from the scheme and the raw
    credential (without its tokens) unless given."""

    @field_validator("auth_scheme", mode="before")
    @classmethod
    def _scheme_model(cls, value: Any) -> Any:
        return as_auth_scheme(value)

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        if not self.credential_key:
            self.credential_key = self._derived_key()

    def _derived_key(self) -> str:
        scheme = f"{scheme_type(self.auth_scheme)}_{model_digest(self.auth_scheme)}"
        raw = self.raw_auth_credential
        if raw is None:
            return f"adk_{scheme}_"
        if raw.oauth2 is not None:  # the key must not change when tokens arrive
            keep = raw.oauth2.model_dump(include={"client_id", "client_secret", "audience", "prompt"})
            raw = raw.model_copy(update={"oauth2": raw.oauth2.model_validate(keep)})
        return f"adk_{scheme}_{raw.auth_type.value}_{model_digest(raw)}"


class AuthToolArguments(BaseModelWithConfig):
    """The arguments of the `adk_request_credential` call the client gets."""

    function_call_id: str
    auth_config: AuthConfig


def model_digest(model: BaseModel) -> str:
    """A short digest of a model's JSON, the same for equal models: part of credential keys."""
    dumped = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    canonical = json.dumps(dumped, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
