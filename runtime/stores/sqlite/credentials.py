"""Credentials in the SQLite store's file: a table outside the log (secrets are not events)."""

from __future__ import annotations

from typing import Any, Optional

_CREATE = (
    "CREATE TABLE IF NOT EXISTS chronicle_credentials ("
    " app_name TEXT NOT NULL, user_id TEXT NOT NULL, credential_key TEXT NOT NULL, credential TEXT NOT NULL,"
    " PRIMARY KEY (app_name, user_id, credential_key)) WITHOUT ROWID"
)


class SqliteCredentialTable:
    def __init__(self, datastore: Any):
        self.datastore = datastore
        with self.datastore.transaction(commit=True) as c:
            c.execute(_CREATE)

    def get(self, app_name: str, user_id: str, key: str) -> Optional[str]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(
                "SELECT credential FROM chronicle_credentials WHERE app_name = ? AND user_id = ? AND credential_key = ?",
                (app_name, user_id, key),
            )
            row = c.fetchone()
        return row[0] if row else None

    def put(self, app_name: str, user_id: str, key: str, value: str) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute(
                "INSERT INTO chronicle_credentials (app_name, user_id, credential_key, credential) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (app_name, user_id, credential_key) DO UPDATE SET credential = excluded.credential",
                (app_name, user_id, key, value),
            )

    def delete_user(self, app_name: str, user_id: str) -> int:
        with self.datastore.transaction(commit=True) as c:
            c.execute("DELETE FROM chronicle_credentials WHERE app_name = ? AND user_id = ?", (app_name, user_id))
            return getattr(c, "sqlite_cursor", c).rowcount
