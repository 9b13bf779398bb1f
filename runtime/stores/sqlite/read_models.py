"""Read-model rows and positions for SQLite stores (the interface: runtime/stores/projection_storage.py)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from typing import Any, Iterator, Sequence

from pydantic_core import from_json

from eventsourcing.sqlite import SQLiteTrackingRecorder

from runtime.stores.projection_storage import (
    EPOCH_SUFFIX,
    Batch,
    HistoryRow,
    PositionMoved,
    ProjectionStorage,
    SearchMark,
    START,
    ViewId,
)
from runtime.stores.sql import history_sql


def _chunks(seq: Sequence[str], n: int) -> Iterator[Sequence[str]]:
    for i in range(0, len(seq), n):
        yield seq[i : i + n]


_SQLITE_TABLES = [
    "CREATE TABLE IF NOT EXISTS chronicle_projection_views ("
    " projection TEXT NOT NULL, fold TEXT NOT NULL, key TEXT NOT NULL, view TEXT NOT NULL,"
    " PRIMARY KEY (projection, fold, key)) WITHOUT ROWID",
    # A rowid table (its rows are long texts), read in search order (the index below) with
    # instr(), or sought by key.
    "CREATE TABLE IF NOT EXISTS chronicle_projection_search ("
    " projection TEXT NOT NULL, fold TEXT NOT NULL, key TEXT NOT NULL, text TEXT NOT NULL,"
    " sort_key REAL NOT NULL DEFAULT 0, PRIMARY KEY (projection, fold, key))",
    "CREATE INDEX IF NOT EXISTS chronicle_projection_search_order"
    " ON chronicle_projection_search (projection, fold, sort_key, key)",
    "CREATE TABLE IF NOT EXISTS chronicle_projection_items ("
    " projection TEXT NOT NULL, fold TEXT NOT NULL, key TEXT NOT NULL, item TEXT NOT NULL,"
    " value TEXT, removed INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY (projection, fold, key, item)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS chronicle_projection_history ("
    " projection TEXT NOT NULL, fold TEXT NOT NULL, key TEXT NOT NULL, item TEXT NOT NULL,"
    " position INTEGER NOT NULL, value TEXT, removed INTEGER NOT NULL DEFAULT 0,"
    " session TEXT NOT NULL, version INTEGER NOT NULL, event_id TEXT NOT NULL, author TEXT NOT NULL,"
    " PRIMARY KEY (projection, fold, key, item, position)) WITHOUT ROWID",
]


# The searched texts indexed by trigrams (FTS5, SQLite 3.34+), so that a search of the whole store
# reads the rows that hold the text's trigrams instead of scanning every text; kept in step with
# its table by triggers (an index over it: the texts are stored once).
_FTS_TABLES = [
    "CREATE VIRTUAL TABLE IF NOT EXISTS chronicle_projection_search_fts USING fts5(text,"
    " content='chronicle_projection_search', content_rowid='rowid', tokenize='trigram case_sensitive 1')",
    "CREATE TRIGGER IF NOT EXISTS chronicle_projection_search_ai AFTER INSERT ON chronicle_projection_search BEGIN"
    " INSERT INTO chronicle_projection_search_fts (rowid, text) VALUES (new.rowid, new.text); END",
    "CREATE TRIGGER IF NOT EXISTS chronicle_projection_search_ad AFTER DELETE ON chronicle_projection_search BEGIN"
    " INSERT INTO chronicle_projection_search_fts (chronicle_projection_search_fts, rowid, text)"
    " VALUES ('delete', old.rowid, old.text); END",
    # A new order alone (every event moves its session's) leaves the index as it is.
    "DROP TRIGGER IF EXISTS chronicle_projection_search_au",
    "CREATE TRIGGER IF NOT EXISTS chronicle_projection_search_au_text AFTER UPDATE ON chronicle_projection_search"
    " WHEN old.text != new.text BEGIN"
    " INSERT INTO chronicle_projection_search_fts (chronicle_projection_search_fts, rowid, text)"
    " VALUES ('delete', old.rowid, old.text);"
    " INSERT INTO chronicle_projection_search_fts (rowid, text) VALUES (new.rowid, new.text); END",
]


# A whole-store search reads this many texts in order before it asks the trigram index: a text
# that fills no page among them is rare, and the index finds its few rows faster than reading on.
_READ_IN_ORDER = 1_000


def _has_trigrams() -> bool:
    try:
        with closing(sqlite3.connect(":memory:")) as db:
            db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')")
        return True
    except sqlite3.Error:
        return False


_HAS_TRIGRAMS = _has_trigrams()


class SqliteProjectionStorage(SQLiteTrackingRecorder, ProjectionStorage):
    """Rows in the store's SQLite file; the tracking table is eventsourcing's ``tracking``."""

    def __init__(self, datastore: Any) -> None:
        super().__init__(datastore)
        self.tracking = self
        self._trigrams: bool | None = None  # whether searches use the trigram index (known on the first)
        self._ordered = True  # whether the searched texts have their order (a file made before may not)

    def construct_create_table_statements(self) -> list[str]:
        return [*super().construct_create_table_statements(), *_SQLITE_TABLES, *(_FTS_TABLES if _HAS_TRIGRAMS else [])]

    def create_table(self) -> None:
        indexed = self._indexed()
        if self._search_columns() == {"projection", "fold", "key", "text"}:  # made before texts had an order
            with self.datastore.transaction(commit=True) as c:
                c.execute("ALTER TABLE chronicle_projection_search ADD COLUMN sort_key REAL NOT NULL DEFAULT 0")
        super().create_table()
        if _HAS_TRIGRAMS and not indexed:  # texts stored before the index existed (a build without it)
            with self.datastore.transaction(commit=True) as c:
                c.execute("INSERT INTO chronicle_projection_search_fts (chronicle_projection_search_fts) VALUES ('rebuild')")

    def _search_columns(self) -> set[str]:
        return {r[0] for r in self._select("SELECT name FROM pragma_table_info('chronicle_projection_search')", [])}

    def _indexed(self) -> bool:
        """Whether this file has the trigram index (a read-only copy made without it has not)."""
        rows = self._select("SELECT 1 FROM sqlite_master WHERE name = 'chronicle_projection_search_fts'", [])
        return bool(rows)

    def position(self, name: str) -> int:
        return self.max_tracking_id(name) or 0

    def state(self, name: str) -> tuple[int, int]:
        rows = dict(self._select(
            "SELECT application_name, notification_id FROM tracking WHERE application_name IN (?, ?)",
            [name, name + EPOCH_SUFFIX],
        ))
        return rows.get(name) or 0, rows.get(name + EPOCH_SUFFIX) or 0

    def commit(self, name: str, expected: int, new: int, batch: Batch, epoch: int = 0) -> None:
        with self.datastore.transaction(commit=True) as c:
            # The write comes first: it takes the database's write lock, so nothing can move
            # the position between this check and the commit.
            same_epoch = "COALESCE((SELECT notification_id FROM tracking WHERE application_name = ?), 0) = ?"
            if expected == 0:
                c.execute(
                    "INSERT INTO tracking VALUES (?, ?) ON CONFLICT (application_name) DO UPDATE"
                    f" SET notification_id = excluded.notification_id WHERE tracking.notification_id = 0 AND {same_epoch}"
                    " RETURNING notification_id",
                    (name, new, name + EPOCH_SUFFIX, epoch),
                )
            else:
                c.execute(
                    "UPDATE tracking SET notification_id = ? WHERE application_name = ? AND notification_id = ?"
                    f" AND {same_epoch} RETURNING notification_id",
                    (new, name, expected, name + EPOCH_SUFFIX, epoch),
                )
            if c.fetchone() is None:
                raise PositionMoved(name)
            if batch.views:
                c.executemany(
                    "INSERT INTO chronicle_projection_views VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (projection, fold, key) DO UPDATE SET view = excluded.view",
                    [(name, f, k, v) for (f, k), v in batch.views.items()],
                )
            if batch.search:
                c.executemany(
                    "INSERT INTO chronicle_projection_search VALUES (?, ?, ?, ?, ?)"
                    " ON CONFLICT (projection, fold, key) DO UPDATE SET text = excluded.text, sort_key = excluded.sort_key"
                    " WHERE chronicle_projection_search.text != excluded.text"  # unchanged: its indexes untouched
                    " OR chronicle_projection_search.sort_key != excluded.sort_key",
                    [(name, f, k, t, o) for (f, k), (t, o) in batch.search.items()],
                )
            if batch.items:
                c.executemany(
                    "INSERT INTO chronicle_projection_items VALUES (?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (projection, fold, key, item)"
                    " DO UPDATE SET value = excluded.value, removed = excluded.removed",
                    [(name, f, k, i, v, int(r)) for f, k, i, v, r in batch.item_rows()],
                )
            if batch.history:
                c.executemany(
                    "INSERT OR REPLACE INTO chronicle_projection_history VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(name, *row) for row in batch.history_rows()],
                )

    def drop(self, name: str) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute(
                "INSERT INTO tracking VALUES (?, 0) ON CONFLICT (application_name)"
                " DO UPDATE SET notification_id = 0",
                (name,),
            )
            c.execute(
                "INSERT INTO tracking VALUES (?, 1) ON CONFLICT (application_name)"
                " DO UPDATE SET notification_id = tracking.notification_id + 1",
                (name + EPOCH_SUFFIX,),
            )
            for table in ("views", "search", "items", "history"):
                c.execute(f"DELETE FROM chronicle_projection_{table} WHERE projection = ?", (name,))

    def _select(self, sql: str, params: Sequence[Any]) -> list[Any]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(sql, params)
            return c.fetchall()

    def load_views(self, name: str, fold: str, keys: Sequence[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for chunk in _chunks(keys, 500):
            rows = self._select(
                "SELECT key, view FROM chronicle_projection_views WHERE projection = ? AND fold = ?"
                f" AND key IN ({','.join('?' * len(chunk))})",
                [name, fold, *chunk],
            )
            out.update((r[0], json.loads(r[1])) for r in rows)
        return out

    def search(self, name: str, fold: str, text: str, keys: Sequence[str] | None = None, *,
               after: SearchMark | None = None, limit: int) -> list[SearchMark]:
        if self._trigrams is None:
            self._trigrams = _HAS_TRIGRAMS and self._indexed()
            self._ordered = "sort_key" in self._search_columns()
        if not self._ordered:
            return []  # a read-only file made before texts had an order holds none of the searched folds'
        start = list(after or START)
        with self.datastore.transaction(commit=False) as c:
            if keys is not None:  # the keys' rows, sought one by one (the join's order is forced), sorted
                c.execute(
                    "SELECT s.sort_key, s.key FROM json_each(?) AS k CROSS JOIN chronicle_projection_search AS s"
                    " ON s.projection = ? AND s.fold = ? AND s.key = k.value"
                    " WHERE (s.sort_key, s.key) > (?, ?) AND instr(s.text, ?) > 0 ORDER BY 1, 2 LIMIT ?",
                    [json.dumps(list(keys)), name, fold, *start, text, limit],
                )
                return [tuple(r) for r in c.fetchall()]
            if not (self._trigrams and len(text) >= 3):  # a shorter text has no trigram: in order, to the page's end
                c.execute("SELECT sort_key, key" + self._IN_ORDER + " AND instr(text, ?) > 0 ORDER BY sort_key, key LIMIT ?",
                          [name, fold, *start, text, limit])
                return [tuple(r) for r in c.fetchall()]
            # The first rows in order, while the page fills among them (a common text); past
            # them the text is rare, and its trigram index names the rows that hold it.
            c.execute("SELECT sort_key, key, instr(text, ?) > 0" + self._IN_ORDER + " ORDER BY sort_key, key LIMIT ?",
                      [text, name, fold, *start, _READ_IN_ORDER])
            found: list[SearchMark] = []
            read, last = 0, start
            while (row := c.fetchone()) is not None:  # a row at a time: the page's end ends the read
                sort_key, key, hit = row
                read, last = read + 1, [sort_key, key]
                if hit:
                    found.append((sort_key, key))
                    if len(found) == limit:
                        return found
            if read < _READ_IN_ORDER:
                return found  # the last texts were read
            # A phrase of trigrams at consecutive offsets: the texts holding it, exactly.
            c.execute(
                "SELECT s.sort_key, s.key FROM chronicle_projection_search_fts AS m"
                " CROSS JOIN chronicle_projection_search AS s ON s.rowid = m.rowid"
                " WHERE chronicle_projection_search_fts MATCH ? AND s.projection = ? AND s.fold = ?"
                " AND (s.sort_key, s.key) > (?, ?) ORDER BY 1, 2 LIMIT ?",
                ['"' + text.replace('"', '""') + '"', name, fold, *last, limit - len(found)],
            )
            return found + [tuple(r) for r in c.fetchall()]

    _IN_ORDER = " FROM chronicle_projection_search WHERE projection = ? AND fold = ? AND (sort_key, key) > (?, ?)"

    def load_items(self, name: str, fold: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for chunk in _chunks(keys, 500):
            rows = self._select(
                "SELECT key, item, value FROM chronicle_projection_items WHERE projection = ? AND fold = ?"
                f" AND NOT removed AND key IN ({','.join('?' * len(chunk))})",
                [name, fold, *chunk],
            )
            for key, item, value in rows:
                out.setdefault(key, {})[item] = json.loads(value)
        return out

    def read_views(self, name: str, fold: str | None = None) -> dict[ViewId, Any]:
        sql = "SELECT fold, key, view FROM chronicle_projection_views WHERE projection = ?"
        rows = self._select(sql + (" AND fold = ?" if fold else ""), [name, fold] if fold else [name])
        return {(f, k): from_json(v) for f, k, v in rows}  # Rust's parser: several times json.loads's speed

    def read_items(self, name: str, fold: str | None = None) -> dict[ViewId, dict[str, Any]]:
        sql = "SELECT fold, key, item, value FROM chronicle_projection_items WHERE projection = ? AND NOT removed"
        rows = self._select(sql + (" AND fold = ?" if fold else ""), [name, fold] if fold else [name])
        out: dict[ViewId, dict[str, Any]] = {}
        for f, k, i, v in rows:
            out.setdefault((f, k), {})[i] = json.loads(v)
        return out

    # Per entry, its last write at or before the position: two index seeks (a join lets
    # SQLite's planner scan the whole history of the view instead).
    _ITEMS_AT = (
        "SELECT i.item,"
        " (SELECT h.value FROM chronicle_projection_history h WHERE h.projection = i.projection AND h.fold = i.fold"
        "  AND h.key = i.key AND h.item = i.item AND h.position <= ? ORDER BY h.position DESC LIMIT 1),"
        " (SELECT h.removed FROM chronicle_projection_history h WHERE h.projection = i.projection AND h.fold = i.fold"
        "  AND h.key = i.key AND h.item = i.item AND h.position <= ? ORDER BY h.position DESC LIMIT 1)"
        " FROM chronicle_projection_items i WHERE i.projection = ? AND i.fold = ? AND i.key = ?"
    )

    def items_at(self, name: str, fold: str, key: str, position: int) -> dict[str, Any]:
        rows = self._select(self._ITEMS_AT, [position, position, name, fold, key])
        return {item: json.loads(value) for item, value, removed in rows if removed == 0}

    def read_at(self, position: int, reads: Sequence[tuple[str, str, str]]) -> tuple[dict[str, int], list[dict[str, Any]]]:
        names = list(dict.fromkeys(r[0] for r in reads))
        with self.datastore.transaction(commit=False) as c:
            c.execute(
                "SELECT application_name, notification_id FROM tracking"
                f" WHERE application_name IN ({','.join('?' * len(names))})",
                names,
            )
            positions = {name: 0 for name in names}
            positions.update((r[0], r[1]) for r in c.fetchall())
            views = []
            for name, fold, key in reads:
                c.execute(self._ITEMS_AT, (position, position, name, fold, key))
                views.append({item: json.loads(value) for item, value, removed in c.fetchall() if removed == 0})
        return positions, views

    def read_history(
        self, name: str, fold: str | None = None, key: str | None = None, *, after: int = 0, upto: int | None = None
    ) -> list[HistoryRow]:
        sql, params = history_sql("?", name, fold, key, after, upto)
        rows = self._select(sql, params)
        return [
            HistoryRow(r[0], r[1], r[2], r[3], None if r[4] is None else json.loads(r[4]), bool(r[5]), *r[6:])
            for r in rows
        ]

    def names(self) -> list[str]:
        rows = self._select("SELECT application_name FROM tracking WHERE application_name != '__migration__'", [])
        return sorted(r[0] for r in rows if not r[0].endswith(EPOCH_SUFFIX))


# -- PostgreSQL ----------------------------------------------------------------------------
