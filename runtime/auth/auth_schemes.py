"""Auth schemes. ADK uses FastAPI's OpenAPI security-scheme models; Chronicle's core does not depend
on FastAPI, so a scheme is one open model that keeps every OpenAPI field it is given (`type` plus
whatever that type needs: `in`/`name` for apiKey, `scheme` for http, `flows` for oauth2, ...).
Where FastAPI is installed (the `openapi` extra), its models are accepted wherever a scheme is."""

from __future__ import annotations

from enum import Enum
from typing import Any, Optional

from pydantic import BaseModel, Field, model_validator

from runtime.auth.auth_credential import BaseModelWithConfig


class AuthSchemeType(str, Enum):
    apiKey = "apiKey"
    http = "http"
    oauth2 = "oauth2"
    openIdConnect = "openIdConnect"

    def __eq__(self, other: object) -> bool:
        # Equal to FastAPI's SecuritySchemeType member of the same value (a plain Enum, the type_
        # of its scheme models), so `scheme.type_ == AuthSchemeType.oauth2` holds for either model.
        if isinstance(other, Enum):
            other = other.value
        return str.__eq__(self, other)

    __hash__ = str.__hash__


OAUTH_SCHEME_TYPES = (AuthSchemeType.oauth2.value, AuthSchemeType.openIdConnect.value)
"""The schemes whose credential a user grants interactively (and a refresh token can renew)."""


class AuthScheme(BaseModelWithConfig):
    type_: str = Field(alias="type")

    @model_validator(mode="before")
    @classmethod
    def _from_openapi_model(cls, data: Any) -> Any:
        """FastAPI's scheme models (`APIKey(in_=..., name=...)`, as ADK's samples write them) are
        taken by their OpenAPI fields."""
        if isinstance(data, BaseModel) and not isinstance(data, AuthScheme):
            return data.model_dump(mode="json", by_alias=True, exclude_none=True)
        return data


class CustomAuthScheme(AuthScheme):
    pass


class OpenIdConnectWithConfig(AuthScheme):
    """OpenID Connect with its endpoints spelled out (what a discovery document gives), so no
    discovery call is needed: google-adk's flattened scheme."""

    type_: str = Field(AuthSchemeType.openIdConnect.value, alias="type")
    authorization_endpoint: str
    token_endpoint: str
    userinfo_endpoint: Optional[str] = None
    revocation_endpoint: Optional[str] = None
    token_endpoint_auth_methods_supported: Optional[list[str]] = None
    grant_types_supported: Optional[list[str]] = None
    scopes: Optional[list[str]] = None


def as_auth_scheme(value: Any) -> Any:
    """A scheme as AuthConfig keeps it: any scheme model as given (Chronicle's, or FastAPI's
    OpenAPI models), a dict as Chronicle's open AuthScheme."""
    if isinstance(value, dict):
        return AuthScheme.model_validate(value)
    if isinstance(value, BaseModel) and hasattr(value, "type_"):
        return value
    raise ValueError(f"auth_scheme must be an OpenAPI security scheme (a model or a dict), got {type(value).__name__}")


def scheme_type(scheme: Any) -> str:
    """The scheme's OpenAPI type as a plain string ("apiKey", "oauth2", ...), whatever its model."""
    kind = scheme.type_
    return str(getattr(kind, "value", kind))
