"""FastAPI's OpenAPI pydantic models (`fastapi.openapi.models`): the data google-adk's OpenAPI tools
take and give (Operation, Schema, security schemes). One import, one clear refusal without the
`openapi` extra."""

from __future__ import annotations

from domain.errors import ChronicleError


class OpenApiExtraNotInstalledError(ChronicleError, ImportError):
    """The OpenAPI tools need the optional `fastapi` package."""


try:
    from fastapi.encoders import jsonable_encoder
    from fastapi.openapi import models as openapi_models
except ImportError:  # pragma: no cover - the extra is installed in the test environment
    raise OpenApiExtraNotInstalledError(
        "The OpenAPI tools (runtime.tools.openapi_tool) need FastAPI's OpenAPI models: "
        "pip install 'chronicle-runtime[openapi]' (or pip install fastapi)."
    ) from None

__all__ = ["OpenApiExtraNotInstalledError", "jsonable_encoder", "openapi_models"]
