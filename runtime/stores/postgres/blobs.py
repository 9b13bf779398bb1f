"""The PostgreSQL store's blobs: a table in its database."""

from __future__ import annotations

from typing import Any, Optional

from runtime.stores.postgres.recorder import create_pg_tables


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

    def names(self) -> list[str]:
        with self.datastore.get_connection() as conn, conn.cursor() as c:
            c.execute("SELECT sha256 FROM chronicle_blobs ORDER BY sha256")
            return [r["sha256"] for r in c.fetchall()]

    def count(self) -> int:
        with self.datastore.get_connection() as conn, conn.cursor() as c:
            c.execute("SELECT count(*) AS n FROM chronicle_blobs")
            return int(c.fetchone()["n"])
