"""OAuth2 tokens for a credential: where the scheme's token endpoint is, whether the access token
has expired, and refreshing it (a refresh-token grant over a real HTTP client)."""

from __future__ import annotations

import time
from typing import Any, Optional

import httpx

from runtime.auth.auth_credential import AuthCredential

EXPIRY_LEEWAY_SECONDS = 60
"""A token this close to its expiry counts as expired: it could lapse on its way to the API."""


def token_endpoint(auth_scheme: Any) -> Optional[str]:
    """The scheme's token URL: an OpenID configuration's, or the first OAuth2 flow that has one."""
    endpoint = getattr(auth_scheme, "token_endpoint", None)
    if endpoint:
        return endpoint
    flows = getattr(auth_scheme, "flows", None)
    for name in ("authorizationCode", "clientCredentials", "password"):
        flow = getattr(flows, name, None) if flows is not None else None
        if flow is None and isinstance(flows, dict):
            flow = flows.get(name)
        url = flow.get("tokenUrl") if isinstance(flow, dict) else getattr(flow, "tokenUrl", None)
        if url:
            return url
    return None


def is_token_expired(credential: AuthCredential) -> bool:
    """Whether the access token has expired (or is about to); unknown expiry counts as valid."""
    oauth2 = credential.oauth2
    if oauth2 is None:
        return False
    expires_at = oauth2.expires_at
    if not expires_at and oauth2.expires_in:
        expires_at = int(time.time()) + oauth2.expires_in
    return bool(expires_at) and expires_at - EXPIRY_LEEWAY_SECONDS < time.time()


def update_credential_with_tokens(credential: AuthCredential, tokens: dict[str, Any]) -> None:
    """Writes a token response's fields into the credential (a refresh token only if one came)."""
    oauth2 = credential.oauth2
    oauth2.access_token = tokens.get("access_token")
    oauth2.refresh_token = tokens.get("refresh_token") or oauth2.refresh_token
    oauth2.id_token = tokens.get("id_token") or oauth2.id_token
    expires_in = tokens.get("expires_in")
    oauth2.expires_in = int(expires_in) if expires_in is not None else None
    oauth2.expires_at = int(tokens["expires_at"]) if tokens.get("expires_at") else (
        int(time.time()) + int(expires_in) if expires_in is not None else None)


def refresh_access_token(auth_scheme: Any, credential: AuthCredential, *, timeout: float = 30.0) -> bool:
    """Refreshes the credential's tokens in place with a refresh-token grant. False (the credential
    unchanged) when it cannot: no refresh token, client id or token endpoint, or the server refused."""
    oauth2 = credential.oauth2
    if oauth2 is None or not oauth2.refresh_token:
        return False
    return _grant(auth_scheme, credential, {"grant_type": "refresh_token", "refresh_token": oauth2.refresh_token}, timeout)


def authorization_code(credential: AuthCredential) -> Optional[str]:
    """The code the user's sign-in returned: the credential's, or the one in its redirect URI."""
    from urllib.parse import parse_qs, urlparse

    oauth2 = credential.oauth2
    if oauth2 is None:
        return None
    if oauth2.auth_code:
        return oauth2.auth_code
    query = parse_qs(urlparse(oauth2.auth_response_uri or "").query)
    return (query.get("code") or [None])[0]


def exchange_authorization_code(auth_scheme: Any, credential: AuthCredential, *, timeout: float = 30.0) -> bool:
    """Exchanges the credential's authorization code for tokens, in place (an authorization-code
    grant, with its PKCE verifier if it has one). False (unchanged) when it cannot."""
    oauth2 = credential.oauth2
    code = authorization_code(credential)
    if oauth2 is None or not code:
        return False
    form = {"grant_type": "authorization_code", "code": code}
    if oauth2.redirect_uri:
        form["redirect_uri"] = oauth2.redirect_uri
    if oauth2.code_verifier:
        form["code_verifier"] = oauth2.code_verifier
    return _grant(auth_scheme, credential, form, timeout)


def redeem_authorization_code(auth_config: Any, credential: AuthCredential) -> bool:
    """Exchanges the code a user's sign-in returned (in `credential`, the client's answer) for
    tokens, in place, as the configured client (its id, secret and redirect URI come from the
    config's raw credential: an answer never carries the secret). True if it did; False when
    there is no code to redeem or the token endpoint refused it."""
    oauth2 = credential.oauth2
    if oauth2 is None or oauth2.access_token or not authorization_code(credential):
        return False
    configured = auth_config.raw_auth_credential.oauth2 if auth_config.raw_auth_credential else None
    if configured is not None:
        oauth2.client_id = oauth2.client_id or configured.client_id
        oauth2.client_secret = oauth2.client_secret or configured.client_secret
        oauth2.redirect_uri = oauth2.redirect_uri or configured.redirect_uri
    if not exchange_authorization_code(auth_config.auth_scheme, credential):
        return False
    oauth2.auth_code = oauth2.auth_response_uri = None  # used: a code is good for one exchange
    return True


def uses_client_credentials(auth_scheme: Any) -> bool:
    """Whether the scheme lets the client get tokens as itself (the client-credentials grant),
    with no person to sign in: an OAuth2 `clientCredentials` flow, or an OpenID configuration
    that supports the grant."""
    flows = getattr(auth_scheme, "flows", None)
    if flows is not None:
        flow = flows.get("clientCredentials") if isinstance(flows, dict) else getattr(flows, "clientCredentials", None)
        return flow is not None
    return "client_credentials" in (getattr(auth_scheme, "grant_types_supported", None) or [])


def client_credentials_grant(auth_scheme: Any, credential: AuthCredential, *, timeout: float = 30.0) -> bool:
    """Gets tokens for the credential's client as itself, in place; False when refused."""
    _, scopes = authorization_endpoint(auth_scheme)
    form = {"grant_type": "client_credentials"}
    if scopes:
        form["scope"] = " ".join(scopes)
    return _grant(auth_scheme, credential, form, timeout)


def has_unredeemed_code(credential: AuthCredential) -> bool:
    """An OAuth2 answer holding a code but no token: unusable until exchanged."""
    oauth2 = credential.oauth2
    return oauth2 is not None and not oauth2.access_token and bool(oauth2.auth_code or oauth2.auth_response_uri)


def authorization_endpoint(auth_scheme: Any) -> tuple[Optional[str], list[str]]:
    """Where a user signs in, and the scopes asked for: an OpenID configuration's, or the first
    OAuth2 flow's that has one (implicit, authorization code, then the token URL of client
    credentials or password), as google-adk 2.13 picks them."""
    endpoint = getattr(auth_scheme, "authorization_endpoint", None)
    if endpoint:
        return endpoint, list(getattr(auth_scheme, "scopes", None) or [])
    flows = getattr(auth_scheme, "flows", None)

    def flow(name: str) -> Any:
        found = getattr(flows, name, None) if flows is not None else None
        return flows.get(name) if found is None and isinstance(flows, dict) else found

    def field(value: Any, name: str) -> Any:
        return value.get(name) if isinstance(value, dict) else getattr(value, name, None)

    candidates = [("implicit", "authorizationUrl"), ("authorizationCode", "authorizationUrl"),
                  ("clientCredentials", "tokenUrl"), ("password", "tokenUrl")]
    url = next((field(flow(n), key) for n, key in candidates if flow(n) is not None and field(flow(n), key)), None)
    first = next((flow(n) for n in ("implicit", "authorizationCode", "clientCredentials", "password") if flow(n)), None)
    scopes = field(first, "scopes") if first is not None else None
    return url, list(scopes or [])


def random_token(length: int) -> str:
    import secrets
    import string

    return "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(length))


def s256_challenge(code_verifier: str) -> str:
    """PKCE's S256 code challenge of a verifier (RFC 7636)."""
    import base64
    import hashlib

    return base64.urlsafe_b64encode(hashlib.sha256(code_verifier.encode()).digest()).decode().rstrip("=")


def authorization_uri(auth_scheme: Any, oauth2: Any) -> tuple[str, str]:
    """The URI a user opens to sign in (an authorization-code request with a fresh `state`, and
    ADK's `access_type=offline` and `prompt`; with the S256 challenge of the credential's code
    verifier when it has one, PKCE), and that state."""
    from urllib.parse import urlencode

    endpoint, scopes = authorization_endpoint(auth_scheme)
    if not endpoint:
        raise ValueError(f"Cannot generate an auth uri for auth scheme {type(auth_scheme).__name__}: "
                         "no flow declares an authorization endpoint.")
    state = random_token(30)
    params = {"response_type": "code", "client_id": oauth2.client_id}
    if oauth2.redirect_uri:
        params["redirect_uri"] = oauth2.redirect_uri
    if scopes:
        params["scope"] = " ".join(scopes)
    params.update(state=state, access_type="offline", prompt=oauth2.prompt or "consent")
    if oauth2.audience:
        params["audience"] = oauth2.audience
    if oauth2.nonce:
        params["nonce"] = oauth2.nonce
    if oauth2.code_verifier:
        params.update(code_challenge=s256_challenge(oauth2.code_verifier), code_challenge_method="S256")
    return f"{endpoint}{'&' if '?' in endpoint else '?'}{urlencode(params)}", state


def _grant(auth_scheme: Any, credential: AuthCredential, form: dict[str, str], timeout: float) -> bool:
    """Posts a token grant to the scheme's token endpoint (the client authenticated as the
    credential says) and writes the tokens into the credential; False if it cannot or is refused."""
    oauth2 = credential.oauth2
    url = token_endpoint(auth_scheme)
    if oauth2 is None or not oauth2.client_id or not url:
        return False
    auth = None
    if oauth2.token_endpoint_auth_method == "client_secret_post" or not oauth2.client_secret:
        form["client_id"] = oauth2.client_id
        if oauth2.client_secret:
            form["client_secret"] = oauth2.client_secret
    else:  # client_secret_basic, OAuth2's default
        auth = (oauth2.client_id, oauth2.client_secret)
    try:
        response = httpx.post(url, data=form, auth=auth, timeout=timeout, headers={"Accept": "application/json"})
        response.raise_for_status()
        tokens = response.json()
    except (httpx.HTTPError, ValueError):
        return False
    if not isinstance(tokens, dict) or not tokens.get("access_token"):
        return False
    update_credential_with_tokens(credential, tokens)
    return True
