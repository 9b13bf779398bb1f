"""The statements a purge runs on SQLite (see runtime/operations/purge.py and runtime/stores/purge_sql.py)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from typing import Any
from uuid import UUID

from runtime.stores.purge_sql import PurgeSql
from runtime.stores.base import Store
from runtime.stores.sqlite.blobs import SqliteBlobStore
from runtime.stores.sqlite.store import SqliteStore


class SqlitePurgeSql(PurgeSql):
    ph = "?"

    def __init__(self, store: SqliteStore):
        super().__init__(store)
        self.datastore = store.datastore

    def run(self, c: Any, sql: str, params: list[Any]) -> int:
        c.execute(sql.format(p=self.ph), params)
        return max(getattr(c, "sqlite_cursor", c).rowcount, 0)

    def id(self, log_id: UUID) -> Any:
        return log_id.hex

    def transaction(self) -> Any:
        @contextlib.contextmanager
        def secure() -> Any:
            with self.datastore.transaction(commit=True) as c:
                c.execute("PRAGMA secure_delete = ON")  # deleted content is overwritten with zeros
                try:
                    yield c
                finally:
                    c.execute("PRAGMA secure_delete = OFF")

        return secure()

    def insert_events(self, c: Any, stored: list[Any], after: int) -> None:
        # Positions (rowids) continue after the highest one before the purge, never reusing
        # a purged event's position that read models may already have passed.
        table = self.recorder.events_table_name
        for i, s in enumerate(stored, start=1):
            c.execute(
                f"INSERT INTO {table} (rowid, originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?, ?)",
                (after + i, s.originator_id.hex, s.originator_version, s.topic, s.state),
            )

    def max_position(self, c: Any) -> int:
        c.execute(f"SELECT MAX(rowid) FROM {self.recorder.events_table_name}")
        return int(c.fetchone()[0] or 0)

    def has_table(self, c: Any, name: str) -> bool:
        c.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [name])
        return c.fetchone() is not None

    def delete_docs(self, c: Any, where: str, params: list[Any]) -> int:
        # The FTS5 index keeps its own copy of the text: remove each document from it first.
        c.execute("SELECT id, scope, body FROM chronicle_memory_docs WHERE " + where.format(p="?"), params)
        docs = [tuple(r) for r in c.fetchall()]
        for doc in docs:
            c.execute(
                "INSERT INTO chronicle_memory_fts (chronicle_memory_fts, rowid, scope, body) VALUES ('delete', ?, ?, ?)",
                doc,
            )
        return self.run(c, "DELETE FROM chronicle_memory_docs WHERE " + where, params)

    def delete_blobs(self, store: Store, sha256s: list[str]) -> int:
        blobs = SqliteBlobStore(self.datastore)
        try:
            if blobs.path is None:
                with self.datastore.transaction(commit=True) as c:
                    return self._delete_blob_rows(c, sha256s)
            db = sqlite3.connect(blobs.path, isolation_level=None, timeout=30)
            try:
                db.execute("PRAGMA secure_delete = ON")
                db.execute("BEGIN IMMEDIATE")
                n = self._delete_blob_rows(db.cursor(), sha256s)
                db.execute("COMMIT")
                return n
            finally:
                db.close()
        finally:
            blobs.close()

    @staticmethod
    def _delete_blob_rows(c: Any, sha256s: list[str]) -> int:
        n = 0
        for sha in sha256s:
            c.execute("SELECT data_id FROM chronicle_blobs WHERE sha256 = ?", (sha,))
            row = c.fetchone()
            if row is None:
                continue
            c.execute("DELETE FROM chronicle_blob_data WHERE id = ?", (row[0],))
            c.execute("DELETE FROM chronicle_blobs WHERE sha256 = ?", (sha,))
            n += 1
        return n

    def rewrite_scoped(self, app_name: str, users: list[str], rows: list[tuple[str, str, str, Any]]) -> None:
        with self.transaction() as c:
            c.execute("DELETE FROM chronicle_scoped_state WHERE app_name = ? AND user_id = ''", [app_name])
            for user in users:
                c.execute("DELETE FROM chronicle_scoped_state WHERE app_name = ? AND user_id = ?", [app_name, user])
            for a, u, k, v in rows:
                c.execute("INSERT INTO chronicle_scoped_state VALUES (?, ?, ?, ?)", [a, u, k, json.dumps(v)])

    def erase_free_pages(self) -> None:
        """Moves the WAL's copies of deleted pages into the (zeroed) file and truncates the WAL."""
        pool = self.datastore.pool
        if pool.is_sqlite_memory_mode:
            return
        db = sqlite3.connect(pool.db_name, isolation_level=None, timeout=30)
        try:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            db.close()
