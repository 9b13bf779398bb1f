"""The in-memory store's blobs: a dict, shared by every service on the store."""

from __future__ import annotations

import threading
from typing import Optional


class MemoryBlobStore:
    def __init__(self) -> None:
        self._blobs: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def put(self, sha256: str, data: bytes) -> bool:
        with self._lock:
            if sha256 in self._blobs:
                return False
            self._blobs[sha256] = bytes(data)
            return True

    def get(self, sha256: str) -> Optional[bytes]:
        return self._blobs.get(sha256)

    def exists(self, sha256: str) -> bool:
        return sha256 in self._blobs

    def count(self) -> int:
        return len(self._blobs)

    def names(self) -> list[str]:
        return sorted(self._blobs)
