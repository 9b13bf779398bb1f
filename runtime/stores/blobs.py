"""Content-addressed blob stores: artifact bytes named by their sha256, each stored once.

* `FileBlobStore(root)` — one file per blob under ``root/ab/cdef…``, written atomically;
* each store's own (``Store.blob_store()``, in its package): a dict in memory, tables in a
  SQLite file beside the store's, a table in the PostgreSQL database.

A blob is written before the event that names it, so an event never points at missing
bytes; a save that fails after its blob was written leaves an unreferenced blob (harmless,
removed by a purge). Readers check the hash (`ArtifactIntegrityError` when it differs).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional, Protocol

from domain.errors import StoreError

_SHA256_HEX = frozenset("0123456789abcdef")


class ArtifactIntegrityError(StoreError):
    """Stored artifact bytes are missing or do not match the hash their version recorded."""


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_blob(sha256: str, data: Optional[bytes], what: str) -> bytes:
    """The bytes if they hash to `sha256`; otherwise a clear ArtifactIntegrityError."""
    if data is None:
        raise ArtifactIntegrityError(
            f"{what}: its bytes (sha256 {sha256}) are missing from the blob store. They were "
            "removed outside Chronicle (or by a purge); restore the blob store from a backup."
        )
    actual = sha256_hex(data)
    if actual != sha256:
        raise ArtifactIntegrityError(
            f"{what}: the stored bytes do not match the recorded hash (expected sha256 {sha256}, "
            f"found {actual}, {len(data)} bytes). The blob store was modified outside Chronicle; "
            "restore it from a backup, or save the artifact again."
        )
    return data


_hasher_pool: Optional[ThreadPoolExecutor] = None


_hasher_lock = threading.Lock()


def hashing_pool() -> ThreadPoolExecutor:
    """A small pool that hashes bytes while the caller writes them (hashlib releases the GIL)."""
    global _hasher_pool
    if _hasher_pool is None:
        with _hasher_lock:
            if _hasher_pool is None:
                _hasher_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="chronicle-sha256")
    return _hasher_pool


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def store_bytes(blobs: "BlobStore", data: bytes) -> str:
    """Stores `data` in `blobs` (once per content) and returns its sha256."""
    store = getattr(blobs, "store", None)
    if store is not None:
        try:
            return store(data)
        except AlreadyStored as stored:
            return stored.sha256
    sha256 = sha256_hex(data)
    blobs.put(sha256, data)
    return sha256


class BlobStore(Protocol):
    def put(self, sha256: str, data: bytes) -> bool:
        """Stores `data` under `sha256` unless already there; True when it wrote."""

    def get(self, sha256: str) -> Optional[bytes]: ...

    def exists(self, sha256: str) -> bool: ...

    def count(self) -> int:
        """How many distinct blobs are stored."""

    def names(self) -> list[str]:
        """The sha256 of every stored blob (what ``verify`` hashes again)."""


class FileBlobStore:
    """Blobs as files ``root/<first 2 hex>/<remaining 62 hex>``. Names come only from hashes,
    so nothing is ever written outside `root`.

    With ``fsync=True`` (the default) a blob's bytes are synced before it takes its name; the
    rename itself becomes durable with the log commit that follows it on journaling file
    systems that order metadata (ext4's default data=ordered). A blob lost anyway is reported
    by the hash check on load, never served wrong."""

    def __init__(self, root: str | os.PathLike[str], *, fsync: bool = True):
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self.fsync = fsync

    def store(self, data: bytes) -> str:
        """Stores `data` and returns its sha256. The bytes go to a temporary file while
        another thread hashes them (both release the GIL), then the file takes its name."""
        future = hashing_pool().submit(sha256_hex, data)
        tmp = self._write_temp(data)
        try:
            sha256 = future.result()
            path = self._path(sha256)
            if path.exists():
                os.unlink(tmp)
            else:
                path.parent.mkdir(exist_ok=True)
                os.replace(tmp, path)
        except BaseException:
            _unlink_quietly(tmp)
            raise
        return sha256

    def _write_temp(self, data: bytes) -> str:
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                if self.fsync:
                    f.flush()
                    os.fsync(f.fileno())
        except BaseException:
            _unlink_quietly(tmp)
            raise
        return tmp

    def _path(self, sha256: str) -> Path:
        if len(sha256) != 64 or not _SHA256_HEX.issuperset(sha256):
            raise ValueError(f"Not a sha256 hex digest: {sha256!r}")
        return self.root / sha256[:2] / sha256[2:]

    def put(self, sha256: str, data: bytes) -> bool:
        path = self._path(sha256)
        if path.exists():
            return False
        tmp = self._write_temp(data)
        try:
            path.parent.mkdir(exist_ok=True)
            os.replace(tmp, path)  # atomic: readers see all of it or nothing
        except BaseException:
            _unlink_quietly(tmp)
            raise
        return True

    def get(self, sha256: str) -> Optional[bytes]:
        try:
            with open(self._path(sha256), "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def exists(self, sha256: str) -> bool:
        return self._path(sha256).exists()

    def count(self) -> int:
        return sum(1 for _ in self.root.glob("??/*"))

    def names(self) -> list[str]:
        return sorted(p.parent.name + p.name for p in self.root.glob("??/*"))


class AlreadyStored(Exception):
    """The content is already stored: raised to undo writing it again."""

    def __init__(self, sha256: str):
        super().__init__(sha256)
        self.sha256 = sha256
