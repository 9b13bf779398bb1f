"""Credential services: where a credential the client supplies is kept (never in the event log).

`BaseCredentialService` is ADK's interface. `StoreCredentialService` keeps credentials in a
table of a Chronicle store's own database (SQLite or PostgreSQL: shared by every process on that
store), or beside a memory store; `InMemoryCredentialService` is a private dict."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, Optional

from runtime.auth.auth_credential import AuthCredential
from runtime.auth.auth_tool import AuthConfig
from runtime.stores.credentials import CredentialTable, DictCredentialTable

if TYPE_CHECKING:
    from runtime.contexts import Context
    from runtime.stores.base import Store


class BaseCredentialService(abc.ABC):
    @abc.abstractmethod
    async def load_credential(self, auth_config: AuthConfig, callback_context: Context) -> Optional[AuthCredential]:
        """The credential kept under `auth_config.credential_key` for the context's app and user."""

    @abc.abstractmethod
    async def save_credential(self, auth_config: AuthConfig, callback_context: Context) -> None:
        """Keeps `auth_config.exchanged_auth_credential` under its credential key."""


class TableCredentialService(BaseCredentialService):
    def __init__(self, table: CredentialTable, *, call: Any = None):
        self.table = table
        self._call = call

    async def _run(self, fn: Any, *args: Any) -> Any:
        return await self._call(fn, *args) if self._call is not None else fn(*args)

    async def load_credential(self, auth_config: AuthConfig, callback_context: Context) -> Optional[AuthCredential]:
        text = await self._run(self.table.get, callback_context.app_name, callback_context.user_id, auth_config.credential_key)
        return AuthCredential.model_validate_json(text) if text is not None else None

    async def save_credential(self, auth_config: AuthConfig, callback_context: Context) -> None:
        credential = auth_config.exchanged_auth_credential
        if credential is None:
            return
        text = credential.model_dump_json(by_alias=True, exclude_none=True)
        await self._run(self.table.put, callback_context.app_name, callback_context.user_id, auth_config.credential_key, text)

    async def delete_user_credentials(self, app_name: str, user_id: str) -> int:
        return await self._run(self.table.delete_user, app_name, user_id)


class InMemoryCredentialService(TableCredentialService):
    """Credentials in a private dict of this process."""

    def __init__(self) -> None:
        super().__init__(DictCredentialTable())


class StoreCredentialService(TableCredentialService):
    """Credentials in a Chronicle store (pass the session service's `store`)."""

    def __init__(self, store: Store, *, owns_store: bool = False):
        self.store = store
        self._owns_store = owns_store
        super().__init__(store.credential_table(), call=store.call)

    async def close(self) -> None:
        if self._owns_store:
            self.store.close()


def credential_service_from_url(url: str) -> StoreCredentialService:
    """A credential service for memory://, sqlite:///path.db or postgresql://… URLs."""
    from runtime.stores import service_from_url

    return service_from_url(url, lambda store: StoreCredentialService(store, owns_store=True))
