"""The PostgreSQL memory index: documents with a generated tsvector (English stemming) under
a GIN index, ranked by ts_rank; shared by every process on the database."""

from __future__ import annotations

import hashlib
from typing import Any, Sequence
from uuid import UUID

from psycopg.types.json import Jsonb

from projections.memory import Folded, MemoryDoc, SourceView
from projections.memory_text import words
from runtime.stores.memory_index import LostRace, MemoryIndex
from runtime.stores.postgres.recorder import create_pg_tables
from runtime.stores.sql import MEMORY_DOC_COLUMNS, MemorySql

_CREATE = [
    "CREATE TABLE IF NOT EXISTS chronicle_memory_sources ("
    " app_name text NOT NULL, user_id text NOT NULL, source text NOT NULL, session_id text NOT NULL,"
    " position bigint NOT NULL, rewinds jsonb NOT NULL DEFAULT '[]',"
    " PRIMARY KEY (app_name, user_id, source))",
    # `scope` is a token derived from (app, user) that goes into the tsvector too, so a search
    # intersects the user's postings with the query's in the GIN index instead of filtering
    # every user's matches; the app_name/user_id comparison then makes isolation exact.
    "CREATE TABLE IF NOT EXISTS chronicle_memory_docs ("
    " source text NOT NULL, position bigint NOT NULL, app_name text NOT NULL, user_id text NOT NULL,"
    " event_id text NOT NULL, session_id text NOT NULL, invocation_id text NOT NULL, author text,"
    " timestamp double precision NOT NULL, content jsonb NOT NULL, body text NOT NULL, scope text NOT NULL,"
    " hidden boolean NOT NULL DEFAULT false,"
    " tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body) || to_tsvector('simple', scope)) STORED,"
    " PRIMARY KEY (source, position))",
    # fastupdate off: no pending list that every search would scan linearly
    "CREATE INDEX IF NOT EXISTS chronicle_memory_docs_tsv ON chronicle_memory_docs USING gin (tsv)"
    " WITH (fastupdate = off)",
]

_SQL = MemorySql("%s", "false")


def scope_token(app_name: str, user_id: str) -> str:
    """A single lexeme of letters only (the text parser keeps it whole)."""
    digest = hashlib.sha256(f"{app_name}\x1f{user_id}".encode()).hexdigest()[:24]
    return "scope" + digest.translate(_HEX_TO_LETTERS)


_HEX_TO_LETTERS = str.maketrans("0123456789abcdef", "ghijklmnopqrstuv")


def ts_query(query: str) -> str | None:
    unique = list(dict.fromkeys(words(query)))
    return " | ".join(unique[:32]) if unique else None


def _doc(row: dict[str, Any]) -> MemoryDoc:
    return MemoryDoc(
        source=row["source"], position=row["position"], event_id=row["event_id"], session_id=row["session_id"],
        invocation_id=row["invocation_id"], author=row["author"], timestamp=row["timestamp"],
        content=row["content"], hidden=row["hidden"],
    )


class PostgresMemoryIndex(MemoryIndex):
    def __init__(self, recorder: Any):
        super().__init__(recorder)
        self.datastore = recorder.datastore
        self.events_table = f'"{self.datastore.schema}"."{recorder.events_table_name}"'
        create_pg_tables(self.datastore, _CREATE)

    def sources(self, app_name: str, user_id: str) -> dict[str, SourceView]:
        with self.datastore.get_connection() as conn, conn.cursor() as c:
            c.execute(_SQL.sources, (app_name, user_id))
            rows = c.fetchall()
        return {r["source"]: SourceView(r["session_id"], r["position"], r["rewinds"]) for r in rows}

    def _commit(self, app_name: str, user_id: str, source: str, before: int, view: SourceView, folded: Folded) -> None:
        with self.datastore.transaction(commit=True) as c:
            if before == 0:
                c.execute(_SQL.add_source, (app_name, user_id, source, view.session_id))
            # The row lock makes a racing catch-up of this source wait, then find it moved on.
            c.execute(_SQL.move_source, (view.position, Jsonb(view.rewinds), app_name, user_id, source, before))
            if c.rowcount != 1:
                raise LostRace  # rolls the transaction back
            docs = self.prepared(folded, view)
            if docs:
                c.executemany(
                    "INSERT INTO chronicle_memory_docs (source, position, app_name, user_id, event_id, session_id,"
                    " invocation_id, author, timestamp, content, body, scope, hidden)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    [
                        (d.source, d.position, app_name, user_id, d.event_id, d.session_id, d.invocation_id,
                         d.author, d.timestamp, Jsonb(d.content), d.text, scope_token(app_name, user_id), d.hidden)
                        for d in docs
                    ],
                )
            if folded.members:
                c.executemany(
                    _SQL.add_source, [(app_name, user_id, member, session_id) for member, session_id in folded.members]
                )
            if folded.rewound:
                c.execute(*_SQL.hide(source, view.hidden_ranges()))

    def search(self, app_name: str, user_id: str, query: str, limit: int) -> list[tuple[MemoryDoc, float]]:
        q = ts_query(query)
        if q is None:
            return []
        with self.datastore.get_connection() as conn, conn.cursor() as c:
            c.execute(
                f"SELECT {MEMORY_DOC_COLUMNS}, ts_rank(tsv, q, 1) AS score"
                " FROM chronicle_memory_docs, to_tsquery('english', %s) AS q, to_tsquery('simple', %s) AS s"
                " WHERE tsv @@ (s && q) AND app_name = %s AND user_id = %s AND NOT hidden"
                " ORDER BY score DESC, timestamp DESC LIMIT %s",
                (q, scope_token(app_name, user_id), app_name, user_id, limit),
            )
            rows = c.fetchall()
        return [(_doc(r), float(r["score"])) for r in rows]

    def documents(self, app_name: str, user_id: str) -> list[MemoryDoc]:
        with self.datastore.get_connection() as conn, conn.cursor() as c:
            c.execute(_SQL.documents, (app_name, user_id))
            return [_doc(r) for r in c.fetchall()]

    def clear(self) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute("TRUNCATE chronicle_memory_sources, chronicle_memory_docs")

    def current_versions(self, log_ids: Sequence[UUID]) -> dict[str, int]:
        if not log_ids:
            return {}
        with self.datastore.get_connection() as conn, conn.cursor() as c:
            c.execute(
                f"SELECT originator_id, MAX(originator_version) AS version FROM {self.events_table}"
                " WHERE originator_id = ANY(%s) GROUP BY originator_id",
                (list(log_ids),),
            )
            return {r["originator_id"].hex: r["version"] for r in c.fetchall()}
