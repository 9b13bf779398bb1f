"""Auth schemes. ADK uses FastAPI's OpenAPI security-scheme models; Chronicle does not depend on
FastAPI, so a scheme is one open model that keeps every OpenAPI field it is given (`type` plus
whatever that type needs: `in`/`name` for apiKey, `scheme` for http, `flows` for oauth2, ...)."""

from __future__ import annotations

from enum import Enum

from typing import Any

from pydantic import BaseModel, Field, model_validator

from runtime.auth.auth_credential import BaseModelWithConfig


class AuthSchemeType(str, Enum):
    apiKey = "apiKey"
    http = "http"
    oauth2 = "oauth2"
    openIdConnect = "openIdConnect"


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
