"""The HTTP headers that carry a resolved credential (google-adk 2.13's `build_auth_headers`):
an OAuth2 access token or an HTTP bearer token as `Authorization: Bearer`, HTTP basic as
`Authorization: Basic`, another HTTP scheme as `Authorization: <scheme> <token>` (plus the
credential's additional headers), an API key under the header the scheme names. An API key the
scheme puts in a query or a cookie cannot travel as a header: None, with a warning, as in ADK."""

from __future__ import annotations

import base64
import logging
from typing import Any, Optional

from runtime.auth.auth_credential import AuthCredential

logger = logging.getLogger(__name__)


def api_key_location(auth_scheme: Any) -> Optional[str]:
    """Where an API-key scheme puts the key ("header", "query", "cookie"), whatever its model:
    FastAPI's `APIKey.in_`, or the `in` an open AuthScheme keeps."""
    location = getattr(auth_scheme, "in_", None)
    if location is None:
        location = (getattr(auth_scheme, "model_extra", None) or {}).get("in")
    return None if location is None else str(getattr(location, "value", location))


def build_auth_headers(credential: Optional[AuthCredential], auth_scheme: Any = None) -> Optional[dict[str, str]]:
    if credential is None:
        return None
    headers: Optional[dict[str, str]] = None
    if credential.oauth2:
        if credential.oauth2.access_token:  # a failed exchange leaves none: never "Bearer None"
            headers = {"Authorization": f"Bearer {credential.oauth2.access_token}"}
    elif credential.http:
        http, given = credential.http, credential.http.credentials
        scheme = http.scheme.lower()
        if scheme == "bearer" and given and given.token:
            headers = {"Authorization": f"Bearer {given.token}"}
        elif scheme == "basic":
            if given and given.username and given.password:
                pair = base64.b64encode(f"{given.username}:{given.password}".encode()).decode()
                headers = {"Authorization": f"Basic {pair}"}
        elif given and given.token:
            headers = {"Authorization": f"{http.scheme} {given.token}"}
        if http.additional_headers:
            headers = {**(headers or {}), **http.additional_headers}
    elif credential.api_key and auth_scheme is not None:
        location = api_key_location(auth_scheme)
        if location in (None, "header"):
            headers = {auth_scheme.name: credential.api_key}  # pydantic keeps an open scheme's `name` too
        else:
            logger.warning("Only header-based API key authentication is supported. Configured location: %s", location)
    return headers


def merged_headers(
    auth_headers: Optional[dict[str, str]], provider_headers: Optional[dict[str, str]]
) -> dict[str, str]:
    """A header provider's headers with the credential's on top: a credential header replaces the
    provider's of the same name, whatever its case."""
    headers = dict(provider_headers or {})
    if auth_headers:
        names = {name.lower() for name in auth_headers}
        headers = {name: value for name, value in headers.items() if name.lower() not in names}
        headers.update(auth_headers)
    return headers
