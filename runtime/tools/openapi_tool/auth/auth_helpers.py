"""Building auth schemes and credentials for OpenAPI tools, and turning a credential into the
request parameter that carries it (google.adk.tools.openapi_tool.auth.auth_helpers)."""

from __future__ import annotations

import base64
from typing import Any, Dict, List, Literal, Optional, Tuple

import httpx
from pydantic import BaseModel, ValidationError

from runtime.auth.auth_credential import (
    AuthCredential,
    AuthCredentialTypes,
    OAuth2Auth,
    ServiceAccount,
    ServiceAccountCredential,
    bearer_credential,
)
from runtime.auth.auth_schemes import AuthSchemeType, OpenIdConnectWithConfig, scheme_type
from runtime.tools.openapi_tool.common.common import ApiParameter, Schema
from runtime.tools.openapi_tool.models import openapi_models as m

INTERNAL_AUTH_PREFIX = "_auth_prefix_vaf_"
"""Prefixes the Python name of a parameter that carries a credential, so it never clashes with one
of the operation's own."""

# The token URL is never called for a service account (it signs its own assertion), but an OAuth2
# client-credentials scheme needs one; that scheme marks the credential as needing no user.
_SERVICE_ACCOUNT_TOKEN_URL = "https://oauth2.mtls.googleapis.com/token"


class OpenIdConfig(BaseModel):
    client_id: str
    auth_uri: str
    token_uri: str
    client_secret: str
    redirect_uri: Optional[str]


def token_to_scheme_credential(
    token_type: Literal["apikey", "oauth2Token"],
    location: Optional[Literal["header", "query", "cookie"]] = None,
    name: Optional[str] = None,
    credential_value: Optional[str] = None,
) -> Tuple[Any, Optional[AuthCredential]]:
    """An API key (in a header, query parameter or cookie) or a bearer token, as a scheme and,
    when a value is given, its credential."""
    if token_type == "apikey":
        if location not in ("header", "query", "cookie"):
            raise ValueError(f"Invalid location for apiKey: {location}")
        scheme = m.APIKey(**{"type": AuthSchemeType.apiKey.value, "in": m.APIKeyIn(location), "name": name})
        credential = AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key=credential_value)
        return scheme, credential if credential_value else None
    if token_type == "oauth2Token":
        return m.HTTPBearer(bearerFormat="JWT"), bearer_credential(credential_value) if credential_value else None
    raise ValueError(f"Invalid security scheme type: {token_type}")


def _service_account_scheme() -> Any:
    flow = m.OAuthFlowClientCredentials(tokenUrl=_SERVICE_ACCOUNT_TOKEN_URL, scopes={})
    return m.OAuth2(flows=m.OAuthFlows(clientCredentials=flow))


def service_account_dict_to_scheme_credential(config: Dict[str, Any], scopes: List[str]) -> Tuple[Any, AuthCredential]:
    """A Google service account's key file (as a dict) and scopes as a scheme and credential."""
    account = ServiceAccount(service_account_credential=ServiceAccountCredential.model_construct(**config),
                             scopes=scopes)
    return service_account_scheme_credential(account)


def service_account_scheme_credential(config: ServiceAccount) -> Tuple[Any, AuthCredential]:
    return _service_account_scheme(), AuthCredential(auth_type=AuthCredentialTypes.SERVICE_ACCOUNT,
                                                     service_account=config)


def openid_dict_to_scheme_credential(config_dict: Dict[str, Any], scopes: List[str],
                                     credential_dict: Dict[str, Any]) -> Tuple[OpenIdConnectWithConfig, AuthCredential]:
    """An OpenID Connect configuration (a discovery document's fields) and a client's id and
    secret (possibly one level down, as in Google's client-secret files) as a scheme and credential."""
    config_dict["scopes"] = scopes
    config_dict.setdefault("openIdConnectUrl", "")
    try:
        scheme = OpenIdConnectWithConfig.model_validate(config_dict)
    except ValidationError as e:
        raise ValueError(f"Invalid OpenID Connect configuration: {e}") from e
    values = list(credential_dict.values())
    if len(values) == 1 and isinstance(values[0], dict) and {"client_id", "client_secret"} <= values[0].keys():
        credential_dict = values[0]
    missing = [f for f in ("client_id", "client_secret") if f not in credential_dict]
    if missing:
        raise ValueError(f"Missing required fields in credential_dict: {', '.join(missing)}")
    credential = AuthCredential(auth_type=AuthCredentialTypes.OPEN_ID_CONNECT, oauth2=OAuth2Auth(
        client_id=credential_dict["client_id"], client_secret=credential_dict["client_secret"],
        redirect_uri=credential_dict.get("redirect_uri")))
    return scheme, credential


def openid_url_to_scheme_credential(openid_url: str, scopes: List[str],
                                    credential_dict: Dict[str, Any]) -> Tuple[OpenIdConnectWithConfig, AuthCredential]:
    """As openid_dict_to_scheme_credential, with the configuration fetched from its discovery URL."""
    try:
        response = httpx.get(openid_url, timeout=10)
        response.raise_for_status()
        config_dict = response.json()
    except httpx.RequestError as e:
        raise ValueError(f"Failed to fetch OpenID configuration from {openid_url}: {e}") from e
    except ValueError as e:
        raise ValueError(f"Invalid JSON response from OpenID configuration endpoint {openid_url}: {e}") from e
    config_dict["openIdConnectUrl"] = openid_url
    return openid_dict_to_scheme_credential(config_dict, scopes, credential_dict)


def _header(name: str, description: str, value: str) -> Tuple[ApiParameter, Dict[str, Any]]:
    param = ApiParameter(original_name=name, param_location="header", param_schema=Schema(type="string"),
                         description=description, py_name=INTERNAL_AUTH_PREFIX + name)
    return param, {param.py_name: value}


def credential_to_param(auth_scheme: Any, auth_credential: Optional[AuthCredential]
                        ) -> Tuple[Optional[ApiParameter], Optional[Dict[str, Any]]]:
    """The parameter that sends a ready credential, and its value: the API key where the scheme
    puts it, or an `Authorization` header (Bearer, or Basic from a username and password). An
    OAuth2/OIDC credential not yet exchanged for a token sends nothing."""
    if not auth_credential:
        return None, None
    kind = scheme_type(auth_scheme)
    description = getattr(auth_scheme, "description", None)
    if kind == AuthSchemeType.apiKey.value and auth_credential.api_key:
        location = str(getattr(auth_scheme.in_, "value", auth_scheme.in_))
        if location not in ("header", "query", "cookie"):
            raise ValueError(f"Invalid API Key location: {auth_scheme.in_}")
        name = auth_scheme.name or ""
        param = ApiParameter(original_name=name, param_location=location, param_schema=Schema(type="string"),
                             description=description or "", py_name=INTERNAL_AUTH_PREFIX + name)
        return param, {param.py_name: auth_credential.api_key}
    http = auth_credential.http
    token = http.credentials.token if http and http.credentials else None
    if auth_credential.auth_type == AuthCredentialTypes.HTTP:
        if token:
            return _header("Authorization", description or "Bearer token", f"Bearer {token}")
        creds = http.credentials if http else None
        if http and http.scheme and http.scheme.lower() == "basic" and creds and (
                creds.username is not None or creds.password is not None):
            username = creds.username or ""
            if ":" in username:
                raise ValueError("Invalid HTTP auth credentials: username cannot contain colons")
            encoded = base64.b64encode(f"{username}:{creds.password or ''}".encode()).decode("ascii")
            return _header("Authorization", description or "Basic authentication", f"Basic {encoded}")
        raise ValueError("Invalid HTTP auth credentials")
    if kind in (AuthSchemeType.oauth2.value, AuthSchemeType.openIdConnect.value):
        if token:
            return _header("Authorization", description or "Bearer token", f"Bearer {token}")
        return None, None
    raise ValueError("Invalid security scheme and credential combination")


def dict_to_auth_scheme(data: Dict[str, Any]) -> Any:
    """An OpenAPI securityScheme object as FastAPI's model for its type (APIKey, HTTPBearer,
    HTTPBase, OAuth2, OpenIdConnect)."""
    if "type" not in data:
        raise ValueError("Missing 'type' field in security scheme dictionary.")
    kind = data["type"]
    models = {"apiKey": m.APIKey, "oauth2": m.OAuth2, "openIdConnect": m.OpenIdConnect,
              "http": m.HTTPBearer if data.get("scheme") == "bearer" else m.HTTPBase}
    if kind not in models:
        raise ValueError(f"Invalid security scheme type: {kind}")
    try:
        return models[kind].model_validate(data)
    except ValidationError as e:
        raise ValueError(f"Invalid security scheme data: {e}") from e
