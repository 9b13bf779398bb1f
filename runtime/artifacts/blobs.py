"""Content-addressed blob stores: artifact bytes named by their sha256, each stored once.

* `MemoryBlobStore` — a dict (the in-memory store);
* `FileBlobStore(root)` — one file per blob under ``root/ab/cdef…``, written atomically;
* `SqliteBlobStore` — tables in a SQLite file beside the store's (``chronicle.db-blobs``);
* `PostgresBlobStore` — a ``chronicle_blobs`` table in the store's database.

A blob is written before the event that names it, so an event never points at missing
bytes; a save that fails after its blob was written leaves an unreferenced blob (harmless,
removed by a purge). Readers check the hash (`ArtifactIntegrityError` when it differs).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import tempfile
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Optional, Protocol

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


def _hasher() -> ThreadPoolExecutor:
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
        except _AlreadyStored as stored:
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
        future = _hasher().submit(sha256_hex, data)
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


class SqliteBlobStore:
    """Blobs in SQLite: ``chronicle_blob_data`` holds the bytes, ``chronicle_blobs`` names them
    by sha256 (the bytes go in while another thread hashes them; both release the GIL).

    For a store file ``chronicle.db`` the tables live in their own SQLite file next to it,
    ``chronicle.db-blobs`` (64 KiB pages, rollback journal): artifact bytes are written once
    instead of twice (into the WAL, then again at checkpoint), and a large save never pushes
    megabytes through the WAL that every session append syncs and checkpoints. Copy both
    files (``chronicle.db*``) to back the store up. An in-memory SQLite store keeps the tables
    in its own database.
    """

    CREATE = [
        "CREATE TABLE IF NOT EXISTS chronicle_blob_data (id INTEGER PRIMARY KEY, data BLOB NOT NULL)",
        "CREATE TABLE IF NOT EXISTS chronicle_blobs ("
        " sha256 TEXT PRIMARY KEY, size INTEGER NOT NULL, data_id INTEGER NOT NULL) WITHOUT ROWID",
    ]
    SELECT = (
        "SELECT d.data FROM chronicle_blobs b JOIN chronicle_blob_data d ON d.id = b.data_id WHERE b.sha256 = ?"
    )

    def __init__(self, datastore: Any):
        self.datastore = datastore
        pool = getattr(datastore, "pool", None)
        in_memory = pool is None or pool.is_sqlite_memory_mode
        self.path: Optional[str] = None if in_memory else sidecar_path(pool.db_name)
        self._connections: dict[int, sqlite3.Connection] = {}  # by thread
        self._guard = threading.Lock()
        if self.path is None:
            with self.datastore.transaction(commit=True) as c:
                for statement in self.CREATE:
                    c.execute(statement)
        else:
            db = self._connection()
            db.execute("PRAGMA page_size=65536")  # only takes effect while the file is empty
            for statement in self.CREATE:
                db.execute(statement)

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection to the blob file (opened on first use, again after close)."""
        thread = threading.get_ident()
        db = self._connections.get(thread)
        if db is None:
            db = sqlite3.connect(self.path, isolation_level=None, timeout=30, check_same_thread=False)
            db.execute("PRAGMA journal_mode=PERSIST")  # a per-connection setting
            db.execute("PRAGMA synchronous=FULL")
            with self._guard:
                self._connections[thread] = db
        return db

    def store(self, data: bytes) -> str:
        """Stores `data` (once per content) and returns its sha256."""
        future = _hasher().submit(sha256_hex, data)
        if self.path is None:
            with self.datastore.transaction(commit=True) as c:
                self._insert(c, future, data)
            return future.result()
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            self._insert(db.cursor(), future, data)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return future.result()

    @staticmethod
    def _insert(c: Any, future: Any, data: bytes) -> None:
        c.execute("INSERT INTO chronicle_blob_data (data) VALUES (?)", (data,))
        data_id = c.lastrowid
        sha256 = future.result()
        c.execute("SELECT 1 FROM chronicle_blobs WHERE sha256 = ?", (sha256,))
        if c.fetchone() is not None:
            raise _AlreadyStored(sha256)  # rolls back the bytes just written
        c.execute("INSERT INTO chronicle_blobs VALUES (?, ?, ?)", (sha256, len(data), data_id))

    def put(self, sha256: str, data: bytes) -> bool:
        if self.exists(sha256):
            return False
        try:
            self.store(data)
        except _AlreadyStored:
            return False
        return True

    def _one(self, sql: str, params: tuple[Any, ...]) -> Any:
        if self.path is None:
            with self.datastore.transaction(commit=False) as c:
                c.execute(sql, params)
                return c.fetchone()
        return self._connection().execute(sql, params).fetchone()

    def get(self, sha256: str) -> Optional[bytes]:
        row = self._one(self.SELECT, (sha256,))
        return None if row is None else bytes(row[0])

    def exists(self, sha256: str) -> bool:
        return self._one("SELECT 1 FROM chronicle_blobs WHERE sha256 = ?", (sha256,)) is not None

    def count(self) -> int:
        return int(self._one("SELECT count(*) FROM chronicle_blobs", ())[0])

    def close(self) -> None:
        with self._guard:
            connections, self._connections = self._connections, {}
        for db in connections.values():
            db.close()


class _AlreadyStored(Exception):
    """The content is already stored: raised to undo writing it again."""

    def __init__(self, sha256: str):
        super().__init__(sha256)
        self.sha256 = sha256


def sidecar_path(db_name: str) -> str:
    """Where a SQLite store file's blobs live: ``<store file>-blobs``."""
    path = db_name[len("file:"):] if db_name.startswith("file:") else db_name
    return os.path.abspath(path.split("?", 1)[0] + "-blobs")  # absolute: connections open lazily


class PostgresBlobStore:
    CREATE = [
        "CREATE TABLE IF NOT EXISTS chronicle_blobs ("
        " sha256 text PRIMARY KEY, size bigint NOT NULL, data bytea NOT NULL)",
        # Artifacts are mostly compressed already (images, PDFs): skip TOAST compression.
        "ALTER TABLE chronicle_blobs ALTER COLUMN data SET STORAGE EXTERNAL",
    ]

    def __init__(self, datastore: Any):
        self.datastore = datastore
        create_pg_tables(datastore, self.CREATE)

    def put(self, sha256: str, data: bytes) -> bool:
        if self.exists(sha256):
            return False
        with self.datastore.transaction(commit=True) as c:
            c.execute(
                "INSERT INTO chronicle_blobs (sha256, size, data) VALUES (%s, %s, %b)"
                " ON CONFLICT (sha256) DO NOTHING",
                (sha256, len(data), data),
            )
        return True

    def get(self, sha256: str) -> Optional[bytes]:
        with self.datastore.get_connection() as conn, conn.cursor(binary=True) as c:
            c.execute("SELECT data FROM chronicle_blobs WHERE sha256 = %s", (sha256,))
            row = c.fetchone()
        return None if row is None else bytes(row["data"])

    def exists(self, sha256: str) -> bool:
        with self.datastore.get_connection() as conn, conn.cursor() as c:
            c.execute("SELECT 1 FROM chronicle_blobs WHERE sha256 = %s", (sha256,))
            return c.fetchone() is not None

    def count(self) -> int:
        with self.datastore.get_connection() as conn, conn.cursor() as c:
            c.execute("SELECT count(*) AS n FROM chronicle_blobs")
            return int(c.fetchone()["n"])


def create_pg_tables(datastore: Any, statements: list[str]) -> None:
    """Runs CREATE … IF NOT EXISTS statements; two processes creating at once may collide
    on PostgreSQL's catalog, so a failed attempt is retried once the other has finished."""
    import psycopg

    for attempt in range(3):
        try:
            with datastore.transaction(commit=True) as c:
                c.execute("SELECT pg_advisory_xact_lock(7203311)")  # one creator at a time
                for statement in statements:
                    c.execute(statement)
            return
        except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateObject):
            if attempt == 2:
                raise


_shared_memory_blobs: "weakref.WeakKeyDictionary[Any, MemoryBlobStore]" = weakref.WeakKeyDictionary()
_shared_lock = threading.Lock()


def blob_store_for(store: Any) -> BlobStore:
    """The blob store that lives in `store`'s own database (a dict for the in-memory store,
    shared by every service on that store)."""
    datastore = getattr(store.recorder, "datastore", None)
    kind = type(datastore).__module__ if datastore is not None else ""
    if kind.endswith("sqlite"):
        return SqliteBlobStore(datastore)
    if kind.endswith("postgres"):
        return PostgresBlobStore(datastore)
    with _shared_lock:
        blobs = _shared_memory_blobs.get(store)
        if blobs is None:
            blobs = _shared_memory_blobs[store] = MemoryBlobStore()
        return blobs
