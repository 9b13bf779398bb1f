"""Credentials in the PostgreSQL store's database: a table outside the log (secrets are not events)."""

from __future__ import annotations

from typing import Any, Optional

from runtime.stores.postgres.recorder import create_pg_tables

_CREATE = [
    "CREATE TABLE IF NOT EXISTS chronicle_credentials ("
    " app_name TEXT NOT NULL, user_id TEXT NOT NULL, credential_key TEXT NOT NULL, credential TEXT NOT NULL,"
    " PRIMARY KEY (app_name, user_id, credential_key))"
]


class PostgresCredentialTable:
    def __init__(self, datastore: Any):
        self.datastore = datastore
        create_pg_tables(self.datastore, _CREATE)

    def get(self, app_name: str, user_id: str, key: str) -> Optional[str]:
        with self.datastore.get_connection() as conn, conn.cursor() as c:
            c.execute(
                "SELECT credential FROM chronicle_credentials WHERE app_name = %s AND user_id = %s AND credential_key = %s",
                (app_name, user_id, key),
            )
            row = c.fetchone()
        return row["credential"] if row else None

    def put(self, app_name: str, user_id: str, key: str, value: str) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute(
                "INSERT INTO chronicle_credentials (app_name, user_id, credential_key, credential)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (app_name, user_id, credential_key)"
                " DO UPDATE SET credential = EXCLUDED.credential",
                (app_name, user_id, key, value),
            )

    def delete_user(self, app_name: str, user_id: str) -> int:
        with self.datastore.transaction(commit=True) as c:
            c.execute("DELETE FROM chronicle_credentials WHERE app_name = %s AND user_id = %s", (app_name, user_id))
            return c.rowcount
