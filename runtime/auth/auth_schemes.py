"""Auth schemes. ADK uses FastAPI's OpenAPI security-scheme models; Chronicle does not depend on
FastAPI, so a scheme is one open model that keeps every OpenAPI field it is given (`type` plus
whatever that type needs: `in`/`name` for apiKey, `scheme` for http, `flows` for oauth2, ...)."""

from __future__ import annotations

from enum import Enum

from pydantic import Field

from runtime.auth.auth_credential import BaseModelWithConfig


class AuthSchemeType(str, Enum):
    apiKey = "apiKey"
    http = "http"
    oauth2 = "oauth2"
    openIdConnect = "openIdConnect"


class AuthScheme(BaseModelWithConfig):
    type_: str = Field(alias="type")


class CustomAuthScheme(AuthScheme):
    pass
