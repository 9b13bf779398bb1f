"""Getting a REST tool a credential it can send: one it already has, one kept from earlier (refreshed
when expired), or the one the client sent; else it asks the client (an `adk_request_credential`
pause). google.adk.tools.openapi_tool.openapi_spec_parser.tool_auth_handler, with one difference:
exchanged tokens are kept in `temp:` state and the credential service, never in session state,
so they never reach the event log."""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Iterator, Literal, Optional

from pydantic import BaseModel

from runtime.contexts import ServiceNotConfiguredError
from domain.state import State
from runtime.auth.auth_credential import AuthCredential, AuthCredentialTypes
from runtime.auth.auth_schemes import OAUTH_SCHEME_TYPES, scheme_type
from runtime.auth.auth_tool import AuthConfig, model_digest
from runtime.auth.refresher.oauth2_credential_refresher import OAuth2CredentialRefresher
from runtime.tools.openapi_tool.auth.credential_exchangers.auto_auth_credential_exchanger import (
    AutoAuthCredentialExchanger,
)
from runtime.tools.openapi_tool.auth.credential_exchangers.base_credential_exchanger import (
    AuthCredentialMissingError,
    BaseAuthCredentialExchanger,
)

logger = logging.getLogger(__name__)

AuthPreparationState = Literal["pending", "done"]
UnauthorizedRecoveryState = Literal["refreshed", "reauth_requested", "reauth_limit_reached", "failed"]
MAX_REAUTH_REQUESTS = 1
"""After a 401, the user is asked to sign in again at most this often until a call succeeds."""
# Fields of an OAuth2 credential that change as the flow runs (or with the deployment, as the
# redirect URI): not part of which credential it is.
_TRANSIENT_OAUTH2 = {"auth_uri", "state", "auth_response_uri", "auth_code", "access_token", "refresh_token",
                     "expires_at", "expires_in", "redirect_uri"}


class AuthPreparationResult(BaseModel):
    state: AuthPreparationState
    auth_scheme: Optional[Any] = None
    auth_credential: Optional[AuthCredential] = None


class ToolContextCredentialStore:
    """Exchanged credentials for this invocation, in `temp:` state (which is never stored)."""

    def __init__(self, tool_context: Any):
        self.tool_context = tool_context

    def get_credential_key(self, auth_scheme: Optional[Any], auth_credential: Optional[AuthCredential]) -> str:
        if auth_credential is not None and auth_credential.oauth2 is not None:
            identity = auth_credential.oauth2.model_copy(update={f: None for f in _TRANSIENT_OAUTH2})
            auth_credential = auth_credential.model_copy(update={"oauth2": identity})
        scheme = f"{scheme_type(auth_scheme)}_{model_digest(auth_scheme)}" if auth_scheme else ""
        credential = f"{auth_credential.auth_type.value}_{model_digest(auth_credential)}" if auth_credential else ""
        return f"{State.TEMP_PREFIX}{scheme}_{credential}_existing_exchanged_credential"

    def get_credential(self, auth_scheme: Optional[Any], auth_credential: Optional[AuthCredential]
                       ) -> Optional[AuthCredential]:
        if not self.tool_context:
            return None
        value = self.tool_context.state.get(self.get_credential_key(auth_scheme, auth_credential))
        return AuthCredential.model_validate(value) if value else None

    def store_credential(self, key: str, auth_credential: Optional[AuthCredential]) -> None:
        if self.tool_context:
            self.tool_context.state[key] = auth_credential.model_dump(exclude_none=True)

    def remove_credential(self, key: str) -> None:
        if self.tool_context and key in self.tool_context.state:
            self.tool_context.state[key] = None


class ToolAuthHandler:
    def __init__(self, tool_context: Any, auth_scheme: Optional[Any], auth_credential: Optional[AuthCredential],
                 credential_exchanger: Optional[BaseAuthCredentialExchanger] = None,
                 credential_store: Optional[ToolContextCredentialStore] = None, *,
                 credential_key: Optional[str] = None):
        self.tool_context = tool_context
        self.auth_scheme = auth_scheme.model_copy(deep=True) if auth_scheme else None
        self.auth_credential = auth_credential.model_copy(deep=True) if auth_credential else None
        self.credential_exchanger = credential_exchanger or AutoAuthCredentialExchanger()
        self.credential_store = credential_store
        self._credential_key = credential_key

    @classmethod
    def from_tool_context(cls, tool_context: Any, auth_scheme: Optional[Any], auth_credential: Optional[AuthCredential],
                          credential_exchanger: Optional[BaseAuthCredentialExchanger] = None, *,
                          credential_key: Optional[str] = None) -> ToolAuthHandler:
        return cls(tool_context, auth_scheme, auth_credential, credential_exchanger=credential_exchanger,
                   credential_store=ToolContextCredentialStore(tool_context), credential_key=credential_key)

    def _credential_key_override(self) -> Optional[str]:
        """A key the user chose: the tool's `credential_key`, or one set on the scheme or credential."""
        if self._credential_key:
            return self._credential_key
        for model in (self.auth_credential, self.auth_scheme):
            extra = (getattr(model, "model_extra", None) or {}) if model is not None else {}
            for name in ("credential_key", "credentialKey"):
                if isinstance(extra.get(name), str) and extra[name]:
                    return extra[name]
        return None

    def _build_auth_config(self, exchanged: Optional[AuthCredential] = None) -> AuthConfig:
        return AuthConfig(auth_scheme=self.auth_scheme, raw_auth_credential=self.auth_credential,
                          exchanged_auth_credential=exchanged, credential_key=self._credential_key_override())

    async def _kept_credential(self) -> Optional[AuthCredential]:
        """What this invocation already has, else what the credential service kept from before."""
        if self.credential_store is None:
            return None
        credential = self.credential_store.get_credential(self.auth_scheme, self.auth_credential)
        if credential is None and self.tool_context is not None:
            try:
                credential = await self.tool_context.load_credential(self._build_auth_config())
            except ServiceNotConfiguredError:
                credential = None
            if credential is not None:  # for the rest of the invocation (a 401's recovery reads it)
                key = self.credential_store.get_credential_key(self.auth_scheme, self.auth_credential)
                self.credential_store.store_credential(key, credential)
        if credential is not None and credential.oauth2 is not None:
            credential = await self._refreshed(credential)
        return credential

    async def _refreshed(self, credential: AuthCredential) -> AuthCredential:
        """The credential with a fresh access token when its own has expired (and is kept so)."""
        refresher = OAuth2CredentialRefresher()
        if not await refresher.is_refresh_needed(credential):
            return credential
        old_refresh_token = credential.oauth2.refresh_token
        try:
            refreshed = await refresher.refresh(credential, self.auth_scheme)
        except Exception as e:  # a failed refresh falls back to the token there is
            logger.warning("OAuth2 token refresh failed: %s", e)
            return credential
        if refreshed.oauth2 is None or not refreshed.oauth2.access_token:
            return credential
        if not refreshed.oauth2.refresh_token:
            refreshed.oauth2.refresh_token = old_refresh_token
        await self._keep(refreshed)
        return refreshed

    async def _keep(self, credential: AuthCredential) -> None:
        if self.credential_store is None:
            return
        key = self.credential_store.get_credential_key(self.auth_scheme, self.auth_credential)
        self.credential_store.store_credential(key, credential)
        if self.tool_context is None:
            return
        try:
            await self.tool_context.save_credential(self._build_auth_config(credential))
        except ServiceNotConfiguredError:
            pass  # without a credential service the credential lasts this invocation

    def _exchange(self, credential: AuthCredential) -> Optional[AuthCredential]:
        try:
            return self.credential_exchanger.exchange_credential(self.auth_scheme, credential)
        except Exception as e:
            logger.error("Failed to exchange credential: %s", e)
            return None

    def _request_credential(self) -> None:
        if scheme_type(self.auth_scheme) in OAUTH_SCHEME_TYPES:
            if not self.auth_credential or not self.auth_credential.oauth2:
                raise ValueError(f"auth_credential is empty for scheme {self.auth_scheme.type_}."
                                 "Please create AuthCredential using OAuth2Auth.")
            if not self.auth_credential.oauth2.client_id:
                raise AuthCredentialMissingError("OAuth2 credentials client_id is missing.")
        self.tool_context.request_credential(self._build_auth_config())

    @staticmethod
    def _needs_user(credential: AuthCredential) -> bool:
        """An OAuth2/OIDC credential without an access token: only the user can authorize it."""
        return credential.auth_type in (AuthCredentialTypes.OAUTH2, AuthCredentialTypes.OPEN_ID_CONNECT) and not (
            credential.oauth2 and credential.oauth2.access_token)

    def _recovery_scope(self) -> str:
        """Recovery is per credential, not per tool: a toolset's tools share one credential."""
        key = self.credential_store.get_credential_key(self.auth_scheme, self.auth_credential)
        return key.removeprefix(State.TEMP_PREFIX)

    @contextlib.contextmanager
    def claim_recovery(self) -> Iterator[bool]:
        """True for the one caller that may recover this credential (and retry its call) now; the
        claim lives in `temp:` state, so a retried call that fails again does not recover again."""
        if self.tool_context is None or self.credential_store is None:
            yield False
            return
        lock = f"{State.TEMP_PREFIX}_adk_reauth_attempted_{self._recovery_scope()}"
        if self.tool_context.state.get(lock):
            yield False
            return
        self.tool_context.state[lock] = True
        try:
            yield True
        finally:
            self.tool_context.state[lock] = False

    def note_successful_call(self) -> None:
        """A call the API accepted: the user may be asked to sign in again after a later 401."""
        if self.tool_context is not None and self.credential_store is not None:
            budget = f"_adk_reauth_requests:{self._recovery_scope()}"
            if self.tool_context.state.get(budget):
                self.tool_context.state[budget] = 0

    async def handle_unauthorized_error(self) -> UnauthorizedRecoveryState:
        """After the API refused the token (HTTP 401): a new access token from the refresh token
        ("refreshed": call again), else for OAuth2/OIDC a new request to the user, at most
        MAX_REAUTH_REQUESTS until a call succeeds ("reauth_requested" or "reauth_limit_reached");
        "failed" when neither can help."""
        if self.tool_context is None or self.credential_store is None:
            return "failed"
        kept = self.credential_store.get_credential(self.auth_scheme, self.auth_credential)
        if kept is not None and kept.oauth2 is not None and kept.oauth2.refresh_token:
            stale = kept.model_copy(deep=True)
            stale.oauth2.expires_at, stale.oauth2.expires_in = 1, 0  # the server says it has expired
            fresh = await self._refreshed(stale)
            if fresh is not stale and fresh.oauth2.access_token != kept.oauth2.access_token:
                return "refreshed"
        if scheme_type(self.auth_scheme) not in OAUTH_SCHEME_TYPES:
            return "failed"
        budget = f"_adk_reauth_requests:{self._recovery_scope()}"
        asked = self.tool_context.state.get(budget, 0)
        if asked >= MAX_REAUTH_REQUESTS:
            return "reauth_limit_reached"
        try:
            self._request_credential()
        except (ValueError, AuthCredentialMissingError) as e:
            logger.warning("Failed to request credential after 401: %s", e)
            return "failed"
        self.tool_context.state[budget] = asked + 1
        self.credential_store.remove_credential(
            self.credential_store.get_credential_key(self.auth_scheme, self.auth_credential))
        return "reauth_requested"

    async def prepare_auth_credentials(self) -> AuthPreparationResult:
        if not self.auth_scheme:
            return AuthPreparationResult(state="done")
        credential = await self._kept_credential() or self.auth_credential
        if not credential or self._needs_user(credential):
            credential = self.tool_context.get_auth_response(self._build_auth_config())
            if not credential:
                self._request_credential()
                return AuthPreparationResult(state="pending", auth_scheme=self.auth_scheme,
                                             auth_credential=self.auth_credential)
            await self._keep(credential)
        return AuthPreparationResult(state="done", auth_scheme=self.auth_scheme,
                                     auth_credential=self._exchange(credential))
