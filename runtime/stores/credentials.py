"""Where a store keeps the credentials a client supplies (never in the event log): JSON text by
(app, user, key). ``Store.credential_table()`` gives a store's; the services are runtime/auth/credential_service."""

from __future__ import annotations

import threading
from typing import Optional, Protocol


class CredentialTable(Protocol):
    """What a store provides (`Store.credential_table()`): JSON text by (app, user, key)."""

    def get(self, app_name: str, user_id: str, key: str) -> Optional[str]: ...
    def put(self, app_name: str, user_id: str, key: str, value: str) -> None: ...
    def delete_user(self, app_name: str, user_id: str) -> int: ...


class DictCredentialTable:
    """Credentials in a dict of this process (the in-memory service's, and a memory store's)."""

    def __init__(self) -> None:
        self._rows: dict[tuple[str, str, str], str] = {}
        self._lock = threading.Lock()

    def get(self, app_name: str, user_id: str, key: str) -> Optional[str]:
        return self._rows.get((app_name, user_id, key))

    def put(self, app_name: str, user_id: str, key: str, value: str) -> None:
        with self._lock:
            self._rows[(app_name, user_id, key)] = value

    def delete_user(self, app_name: str, user_id: str) -> int:
        with self._lock:
            doomed = [k for k in self._rows if k[0] == app_name and k[1] == user_id]
            for k in doomed:
                del self._rows[k]
            return len(doomed)
