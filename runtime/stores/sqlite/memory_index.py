"""The SQLite memory index: documents in a table, ranked by FTS5's bm25 (porter stemming).

Each document's FTS row carries a scope token (a number derived from app and user), so a
search intersects the user's postings with the query's instead of ranking every user's
matches; the join on app and user then makes isolation exact.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Sequence
from uuid import UUID

from projections.memory import Folded, MemoryDoc, SourceView
from projections.memory_text import words
from runtime.stores.memory_index import LostRace, MemoryIndex
from runtime.stores.sql import MEMORY_DOC_COLUMNS, MemorySql

_CREATE = [
    "CREATE TABLE IF NOT EXISTS chronicle_memory_sources ("
    " app_name TEXT NOT NULL, user_id TEXT NOT NULL, source TEXT NOT NULL, session_id TEXT NOT NULL,"
    " position INTEGER NOT NULL, rewinds TEXT NOT NULL DEFAULT '[]',"
    " PRIMARY KEY (app_name, user_id, source)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS chronicle_memory_docs ("
    " id INTEGER PRIMARY KEY, app_name TEXT NOT NULL, user_id TEXT NOT NULL, source TEXT NOT NULL,"
    " position INTEGER NOT NULL, event_id TEXT NOT NULL, session_id TEXT NOT NULL, invocation_id TEXT NOT NULL,"
    " author TEXT, timestamp REAL NOT NULL, content TEXT NOT NULL, scope TEXT NOT NULL, body TEXT NOT NULL,"
    " hidden INTEGER NOT NULL DEFAULT 0, UNIQUE (source, position))",
    "CREATE INDEX IF NOT EXISTS chronicle_memory_docs_by_user ON chronicle_memory_docs (app_name, user_id)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS chronicle_memory_fts USING fts5("
    " scope, body, content='chronicle_memory_docs', content_rowid='id', tokenize='porter unicode61')",
]

_SQL = MemorySql("?", "0")


def scope_token(app_name: str, user_id: str) -> str:
    """A token FTS5 keeps whole (digits only: the stemmer leaves it alone)."""
    digest = hashlib.sha256(f"{app_name}\x1f{user_id}".encode()).digest()
    return str(int.from_bytes(digest[:12], "big"))


def fts_query(app_name: str, user_id: str, query: str) -> str | None:
    unique = list(dict.fromkeys(words(query)))
    if not unique:
        return None
    either = " OR ".join(f'"{w}"' for w in unique[:32])
    return f'scope : "{scope_token(app_name, user_id)}" AND body : ({either})'


def _rowcount(cursor: Any) -> int:
    return getattr(cursor, "sqlite_cursor", cursor).rowcount


def _doc(row: Sequence[Any]) -> MemoryDoc:
    return MemoryDoc(
        source=row[0], position=row[1], event_id=row[2], session_id=row[3], invocation_id=row[4],
        author=row[5], timestamp=row[6], content=json.loads(row[7]), hidden=bool(row[8]),
    )


class SqliteMemoryIndex(MemoryIndex):
    def __init__(self, recorder: Any):
        super().__init__(recorder)
        self.datastore = recorder.datastore
        self.events_table = recorder.events_table_name
        with self.datastore.transaction(commit=True) as c:
            for statement in _CREATE:
                c.execute(statement)

    def sources(self, app_name: str, user_id: str) -> dict[str, SourceView]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(_SQL.sources, (app_name, user_id))
            rows = c.fetchall()
        return {r[0]: SourceView(r[1], r[2], json.loads(r[3])) for r in rows}

    def _commit(self, app_name: str, user_id: str, source: str, before: int, view: SourceView, folded: Folded) -> None:
        scope = scope_token(app_name, user_id)
        with self.datastore.transaction(commit=True) as c:
            if before == 0:
                c.execute(_SQL.add_source, (app_name, user_id, source, view.session_id))
            c.execute(_SQL.move_source, (view.position, json.dumps(view.rewinds), app_name, user_id, source, before))
            if _rowcount(c) != 1:
                raise LostRace  # another catch-up folded this range: roll back
            for doc in self.prepared(folded, view):
                c.execute(
                    "INSERT OR IGNORE INTO chronicle_memory_docs (app_name, user_id, source, position, event_id,"
                    " session_id, invocation_id, author, timestamp, content, scope, body, hidden)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (app_name, user_id, doc.source, doc.position, doc.event_id, doc.session_id,
                     doc.invocation_id, doc.author, doc.timestamp, json.dumps(doc.content), scope, doc.text,
                     int(doc.hidden)),
                )
                if _rowcount(c) == 1:  # the FTS index mirrors the table, hidden documents too
                    c.execute(
                        "INSERT INTO chronicle_memory_fts (rowid, scope, body) VALUES (?, ?, ?)",
                        (c.lastrowid, scope, doc.text),
                    )
            if folded.members:
                c.executemany(
                    _SQL.add_source, [(app_name, user_id, member, session_id) for member, session_id in folded.members]
                )
            if folded.rewound:
                c.execute(*_SQL.hide(source, view.hidden_ranges()))

    def search(self, app_name: str, user_id: str, query: str, limit: int) -> list[tuple[MemoryDoc, float]]:
        match = fts_query(app_name, user_id, query)
        if match is None:
            return []
        wanted = limit
        with self.datastore.transaction(commit=False) as c:
            while True:
                # Rank in the FTS index alone, then read the winners; hidden (rewound) ones are
                # dropped, and in the rare case too many were, ask for more.
                c.execute(
                    "SELECT rowid, bm25(chronicle_memory_fts, 0.0, 1.0) AS score FROM chronicle_memory_fts"
                    " WHERE chronicle_memory_fts MATCH ? ORDER BY score, rowid DESC LIMIT ?",
                    (match, wanted),
                )
                ranked = c.fetchall()
                if not ranked:
                    return []
                c.execute(
                    f"SELECT id, app_name, user_id, {MEMORY_DOC_COLUMNS} FROM chronicle_memory_docs"
                    f" WHERE id IN ({', '.join('?' * len(ranked))})",
                    [doc_id for doc_id, _ in ranked],
                )
                rows = {r[0]: r for r in c.fetchall()}
                found = []
                for doc_id, score in ranked:
                    row = rows.get(doc_id)
                    # exact isolation (the scope token is a hash) and rewound documents left out
                    if row is not None and row[1] == app_name and row[2] == user_id and not row[-1]:
                        found.append((_doc(row[3:]), -score))
                if len(found) >= limit or len(ranked) < wanted:
                    return found[:limit]
                wanted *= 4

    def documents(self, app_name: str, user_id: str) -> list[MemoryDoc]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(_SQL.documents, (app_name, user_id))
            return [_doc(r) for r in c.fetchall()]

    def clear(self) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute("DELETE FROM chronicle_memory_sources")
            c.execute("DELETE FROM chronicle_memory_docs")
            c.execute("INSERT INTO chronicle_memory_fts (chronicle_memory_fts) VALUES ('delete-all')")

    def current_versions(self, log_ids: Sequence[UUID]) -> dict[str, int]:
        if not log_ids:
            return {}
        versions: dict[str, int] = {}
        with self.datastore.transaction(commit=False) as c:
            for i in range(0, len(log_ids), 500):
                chunk = [log_id.hex for log_id in log_ids[i : i + 500]]
                c.execute(
                    f"SELECT originator_id, MAX(originator_version) FROM {self.events_table}"
                    f" WHERE originator_id IN ({', '.join('?' * len(chunk))}) GROUP BY originator_id",
                    chunk,
                )
                versions.update({r[0]: r[1] for r in c.fetchall()})
        return versions
