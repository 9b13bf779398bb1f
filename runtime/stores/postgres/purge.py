"""The statements a purge runs on PostgreSQL (see runtime/operations/purge.py and runtime/stores/purge_sql.py)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from psycopg.sql import SQL, Identifier
from psycopg.types.json import Jsonb

from runtime.stores.purge_sql import PurgeSql
from runtime.stores.base import Store
from runtime.stores.postgres.store import PostgresStore


class PostgresPurgeSql(PurgeSql):
    ph = "%s"

    def __init__(self, store: PostgresStore):
        super().__init__(store)
        self.datastore = store.datastore

    def id(self, log_id: UUID) -> Any:
        return log_id

    def transaction(self) -> Any:
        return self.datastore.transaction(commit=True)

    def run(self, c: Any, sql: str, params: list[Any]) -> int:
        c.execute(sql.format(p="%s"), params)
        return max(c.rowcount, 0)

    def max_position(self, c: Any) -> int:
        return 0  # notification ids come from a sequence: never reused

    def insert_events(self, c: Any, stored: list[Any], after: int) -> None:
        # As every append does: the table lock keeps notification ids in commit order, and
        # followers of the log are told something was written.
        table = self.recorder.events_table_name
        c.execute(SQL("LOCK TABLE {} IN EXCLUSIVE MODE").format(Identifier(table)))
        for s in stored:
            c.execute(
                SQL("INSERT INTO {} (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)")
                .format(Identifier(table)),
                (s.originator_id, s.originator_version, s.topic, s.state),
            )
        c.execute(SQL("NOTIFY {}").format(Identifier(getattr(self.recorder, "channel_name", table))))

    def has_table(self, c: Any, name: str) -> bool:
        c.execute("SELECT to_regclass(%s) AS t", [name])
        return c.fetchone()["t"] is not None

    def delete_blobs(self, store: Store, sha256s: list[str]) -> int:
        with self.datastore.transaction(commit=True) as c:
            if not self.has_table(c, "chronicle_blobs"):
                return 0
            c.execute("DELETE FROM chronicle_blobs WHERE sha256 = ANY(%s)", [sha256s])
            return max(c.rowcount, 0)

    def rewrite_scoped(self, app_name: str, users: list[str], rows: list[tuple[str, str, str, Any]]) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute("DELETE FROM chronicle_scoped_state WHERE app_name = %s AND user_id = ''", [app_name])
            for user in users:
                c.execute("DELETE FROM chronicle_scoped_state WHERE app_name = %s AND user_id = %s", [app_name, user])
            for a, u, k, v in rows:
                c.execute("INSERT INTO chronicle_scoped_state VALUES (%s, %s, %s, %s)", [a, u, k, Jsonb(v)])

    def erase_free_pages(self) -> None:
        tables = ["chronicle_events", "chronicle_snapshots", "chronicle_event_ids", "chronicle_sessions",
                  "chronicle_scoped_state", "chronicle_blobs", "chronicle_memory_docs", "chronicle_memory_sources"]
        with self.datastore.get_connection() as conn:
            autocommit = conn.autocommit
            conn.autocommit = True
            try:
                for table in tables:
                    exists = conn.execute("SELECT to_regclass(%s) AS t", [table]).fetchone()
                    if exists and exists["t"] is not None:
                        conn.execute(f"VACUUM {table}")
            finally:
                conn.autocommit = autocommit
