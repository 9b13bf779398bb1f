"""A Google service account (its key, or the environment's default credentials) exchanged for an
access token or, for services that check the caller's identity (Cloud Run), an ID token. Needs
google-auth (installed with google-genai); without it the exchange refuses with a clear error."""

from __future__ import annotations

from typing import Any, Optional

from runtime.auth.auth_credential import AuthCredential, ServiceAccount, bearer_credential
from runtime.tools.openapi_tool.auth.credential_exchangers.base_credential_exchanger import (
    AuthCredentialMissingError,
    BaseAuthCredentialExchanger,
)

try:
    import google.auth
    from google.auth import exceptions as google_auth_exceptions
    from google.auth.transport.requests import Request
    from google.oauth2 import service_account
except ImportError:  # pragma: no cover - google-auth comes with google-genai
    google = service_account = Request = google_auth_exceptions = None  # type: ignore[assignment]

_CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"


class ServiceAccountCredentialExchanger(BaseAuthCredentialExchanger):
    def exchange_credential(self, auth_scheme: Any, auth_credential: Optional[AuthCredential] = None) -> AuthCredential:
        if auth_credential is None or auth_credential.service_account is None:
            raise AuthCredentialMissingError(
                "Service account credentials are missing. Please provide them, or set "
                "`use_default_credential = True` to use application default credential in a hosted "
                "service like Cloud Run.")
        if service_account is None:
            raise AuthCredentialMissingError("Exchanging a service account needs google-auth: pip install google-auth")
        config = auth_credential.service_account
        return self._id_token(config) if config.use_id_token else self._access_token(config)

    def _id_token(self, config: ServiceAccount) -> AuthCredential:
        try:
            if config.use_default_credential:
                from google.oauth2 import id_token

                return bearer_credential(id_token.fetch_id_token(Request(), config.audience))
            credentials = service_account.IDTokenCredentials.from_service_account_info(
                config.service_account_credential.model_dump(), target_audience=config.audience)
            credentials.refresh(Request())
            return bearer_credential(credentials.token)
        except (google_auth_exceptions.GoogleAuthError, ValueError) as e:
            raise AuthCredentialMissingError(f"Failed to exchange service account for ID token: {e}") from e

    def _access_token(self, config: ServiceAccount) -> AuthCredential:
        if not config.use_default_credential and not config.scopes:
            raise AuthCredentialMissingError(
                "scopes are required when using explicit service account credentials for access token exchange.")
        try:
            if config.use_default_credential:
                credentials, project_id = google.auth.default(scopes=config.scopes or [_CLOUD_PLATFORM])
                quota_project = credentials.quota_project_id or project_id
            else:
                credentials = service_account.Credentials.from_service_account_info(
                    config.service_account_credential.model_dump(), scopes=config.scopes)
                quota_project = None
            credentials.refresh(Request())
            # The quota project bills the API use to the project the default credentials name.
            headers = {"x-goog-user-project": quota_project} if quota_project else None
            return bearer_credential(credentials.token, headers)
        except (google_auth_exceptions.GoogleAuthError, ValueError) as e:
            raise AuthCredentialMissingError(f"Failed to exchange service account token: {e}") from e
