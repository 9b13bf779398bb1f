"""The SQLite store's blobs, in a file of their own beside the store's."""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
import threading
from typing import Any, Optional

from runtime.stores.blobs import AlreadyStored, hashing_pool, sha256_hex


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
        self.read_only = bool(getattr(datastore, "read_only", False))
        if self.read_only:
            pass  # a read-only store creates nothing (``get`` of a missing blob file finds nothing)
        elif self.path is None:
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
        if db is None and self.read_only:
            location = urllib.parse.quote(str(self.path))
            db = sqlite3.connect(f"file:{location}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
            with self._guard:
                self._connections[thread] = db
        elif db is None:
            db = sqlite3.connect(self.path, isolation_level=None, timeout=30, check_same_thread=False)
            db.execute("PRAGMA journal_mode=PERSIST")  # a per-connection setting
            db.execute("PRAGMA synchronous=FULL")
            with self._guard:
                self._connections[thread] = db
        return db

    def store(self, data: bytes) -> str:
        """Stores `data` (once per content) and returns its sha256."""
        future = hashing_pool().submit(sha256_hex, data)
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
            if db.in_transaction:  # SQLite has already rolled back after some errors (a full disk)
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
            raise AlreadyStored(sha256)  # rolls back the bytes just written
        c.execute("INSERT INTO chronicle_blobs VALUES (?, ?, ?)", (sha256, len(data), data_id))

    def put(self, sha256: str, data: bytes) -> bool:
        if self.exists(sha256):
            return False
        try:
            self.store(data)
        except AlreadyStored:
            return False
        return True

    def _no_file(self) -> bool:
        """No blob file beside a read-only store: it has no blobs (and may make no file)."""
        return self.read_only and self.path is not None and not os.path.exists(self.path)

    def _one(self, sql: str, params: tuple[Any, ...]) -> Any:
        if self._no_file():
            return None
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
        row = self._one("SELECT count(*) FROM chronicle_blobs", ())
        return 0 if row is None else int(row[0])

    def names(self) -> list[str]:
        sql = "SELECT sha256 FROM chronicle_blobs ORDER BY sha256"
        if self._no_file():
            return []
        if self.path is None:
            with self.datastore.transaction(commit=False) as c:
                c.execute(sql)
                return [r[0] for r in c.fetchall()]
        return [r[0] for r in self._connection().execute(sql).fetchall()]

    def close(self) -> None:
        with self._guard:
            connections, self._connections = self._connections, {}
        for db in connections.values():
            db.close()


def sidecar_path(db_name: str) -> str:
    """Where a SQLite store file's blobs live: ``<store file>-blobs``."""
    path = db_name[len("file:"):] if db_name.startswith("file:") else db_name
    return os.path.abspath(path.split("?", 1)[0] + "-blobs")  # absolute: connections open lazily
