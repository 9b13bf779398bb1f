"""Credentials of the memory store: a dict beside the store (process-local, like the store)."""

from __future__ import annotations

import threading
from typing import Optional


class MemoryCredentialTable:
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
