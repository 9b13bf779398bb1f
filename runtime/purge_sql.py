"""The statements a purge runs, for SQLite and PostgreSQL (see runtime/purge.py)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from uuid import UUID

from domain.errors import StoreError
from runtime.stores import Store

if TYPE_CHECKING:
    from runtime.purge import PurgePlan


def check_store(store: Store) -> None:
    if store_kind(store) not in ("sqlite", "postgres"):
        raise StoreError("A purge removes rows from a database: it works on SQLite and PostgreSQL stores.")


def store_kind(store: Store) -> str:
    datastore = getattr(store.recorder, "datastore", None)
    module = type(datastore).__module__ if datastore is not None else ""
    return "sqlite" if module.endswith("sqlite") else "postgres" if module.endswith("postgres") else "memory"


def _marks(values: list[Any]) -> str:
    return ", ".join(["{p}"] * len(values))


class PurgeSql:
    """The few statements a purge runs, for SQLite and PostgreSQL."""

    ph = "?"

    def __init__(self, store: Store):
        self.store = store
        self.recorder = store.recorder
        self.datastore = store.recorder.datastore

    @staticmethod
    def for_store(store: Store) -> PurgeSql:
        check_store(store)
        return SqlitePurgeSql(store) if store_kind(store) == "sqlite" else PostgresPurgeSql(store)

    def run(self, c: Any, sql: str, params: list[Any]) -> int:
        c.execute(sql.format(p=self.ph), params)
        return max(getattr(c, "sqlite_cursor", c).rowcount, 0)

    def max_version(self, c: Any, log_id: UUID) -> int:
        c.execute(
            f"SELECT MAX(originator_version) FROM chronicle_events WHERE originator_id = {self.ph}", [self.id(log_id)]
        )
        row = c.fetchone()
        value = row[0] if not isinstance(row, dict) else next(iter(row.values()))
        return int(value or 0)

    def purge_memory(self, c: Any, store: Store, plan: PurgePlan) -> dict[str, int]:
        """The memory index's documents and sources of the purged sessions (or of the user)."""
        if not self.has_table(c, "chronicle_memory_docs"):
            return {}
        from runtime.memory.fold import external_source
        from runtime.memory.log import memory_log_id

        counts = {"memory_docs": 0, "memory_sources": 0, "memory_events_blanked": 0}
        users = sorted({s.row.user_id for s in plan.sessions} | ({plan.user_id} if plan.user_id else set()))
        for user in users:
            owner, owner_params = "app_name = {p} AND user_id = {p}", [plan.app_name, user]
            if plan.session_id is None:  # the whole user
                docs, docs_params = owner, owner_params
                sources, sources_params = owner, owner_params
            else:
                memory_log = memory_log_id(plan.app_name, user)
                ids = [s.row.session_id for s in plan.sessions if s.row.user_id == user]
                names = [s.row.log_id.hex for s in plan.sessions if s.row.user_id == user]
                names += [external_source(memory_log.hex, i) for i in ids]
                docs = f"{owner} AND (session_id IN ({_marks(ids)}) OR source IN ({_marks(names)}))"
                docs_params = [*owner_params, *ids, *names]
                sources, sources_params = f"{owner} AND source IN ({_marks(names)})", [*owner_params, *names]
                counts["memory_events_blanked"] += self._blank_remembered(c, store, memory_log, set(ids))
            counts["memory_docs"] += self.delete_docs(c, docs, docs_params)
            counts["memory_sources"] += self.run(c, "DELETE FROM chronicle_memory_sources WHERE " + sources, sources_params)
        return counts

    def _blank_remembered(self, c: Any, store: Store, memory_log: UUID, session_ids: set[str]) -> int:
        """Text copies of the purged sessions in a memory log: emptied in place (the log stays whole)."""
        from runtime.memory.log import MemoryLog

        blanked = 0
        for row in store.recorder.select_events(memory_log):
            if row.topic != MemoryLog.Remembered.TOPIC:
                continue
            state = json.loads(row.state)
            if state.get("session_id") in session_ids and state.get("events"):
                state["events"], state["purged"] = [], True
                self.run(
                    c, "UPDATE chronicle_events SET state = {p} WHERE originator_id = {p} AND originator_version = {p}",
                    [self.blob(json.dumps(state).encode()), self.id(memory_log), row.originator_version],
                )
                blanked += 1
        return blanked

    # per database
    def id(self, log_id: UUID) -> Any:
        raise NotImplementedError

    def blob(self, data: bytes) -> Any:
        return data

    def transaction(self) -> Any:
        raise NotImplementedError

    def max_position(self, c: Any) -> int:
        raise NotImplementedError

    def insert_events(self, c: Any, stored: list[Any], after: int) -> None:
        raise NotImplementedError

    def has_table(self, c: Any, name: str) -> bool:
        raise NotImplementedError

    def delete_docs(self, c: Any, where: str, params: list[Any]) -> int:
        return self.run(c, "DELETE FROM chronicle_memory_docs WHERE " + where, params)

    def delete_blobs(self, store: Store, sha256s: list[str]) -> int:
        raise NotImplementedError

    def rewrite_scoped(self, app_name: str, users: list[str], rows: list[tuple[str, str, str, Any]]) -> None:
        raise NotImplementedError

    def erase_free_pages(self) -> None:
        raise NotImplementedError


class SqlitePurgeSql(PurgeSql):
    ph = "?"

    def id(self, log_id: UUID) -> Any:
        return log_id.hex

    def transaction(self) -> Any:
        import contextlib

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
        import sqlite3

        from runtime.artifacts.blobs import SqliteBlobStore

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
        import sqlite3

        pool = self.datastore.pool
        if pool.is_sqlite_memory_mode:
            return
        db = sqlite3.connect(pool.db_name, isolation_level=None, timeout=30)
        try:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            db.close()


class PostgresPurgeSql(PurgeSql):
    ph = "%s"

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
        from psycopg.sql import SQL, Identifier

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
        from psycopg.types.json import Jsonb

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
