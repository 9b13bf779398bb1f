"""Where tracked read models keep their rows, next to the log, in every kind of store.

Three tables per store, shared by all projections (the projection's name is a column):

* ``views``   — (projection, fold, key) -> the view as JSON, for folds stored whole;
* ``items``   — (projection, fold, key, item) -> JSON value, for folds stored entry by entry
                (state, artifact versions); a removed entry keeps its row, marked removed;
* ``history`` — every write to an entry: (projection, fold, key, item, position) -> value,
                with the session, version, event id and author that wrote it (time travel).

and eventsourcing's tracking table, one row per projection: the position in the log (the
notification id) the rows reflect — plus a second row counting the projection's drops (its
epoch). ``commit`` writes a batch of rows *and* moves that position in one transaction, and only
if position and epoch are still the ones the batch was folded from (compare-and-set): a batch
is applied exactly once, whoever else is catching up at the same time, and a runner whose
cache predates a rebuild cannot write over it. The tracking recorders are eventsourcing's
(SQLite, PostgreSQL, POPO); these classes add the row tables to them.
"""

from __future__ import annotations

import json
import threading
import weakref
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Iterable, NamedTuple, Sequence

from eventsourcing.persistence import IntegrityError, ProgrammingError, Tracking
from eventsourcing.popo import POPOApplicationRecorder, POPOTrackingRecorder
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteTrackingRecorder

from domain.errors import StoreError
from runtime.stores import Store

ViewId = tuple[str, str]  # (fold, key)


class PositionMoved(Exception):
    """The projection's position changed since the batch was folded (someone else applied it)."""


class HistoryRow(NamedTuple):
    fold: str
    key: str
    item: str
    position: int
    value: Any  # decoded JSON; None when removed
    removed: bool
    session: str  # app/user/session of the writing event
    version: int
    event_id: str
    author: str


@dataclass
class Batch:
    """What one commit writes for one projection (values as JSON text)."""

    views: dict[ViewId, str] = field(default_factory=dict)
    items: dict[tuple[str, str, str], str | None] = field(default_factory=dict)  # None: removed
    history: dict[tuple[str, str, str, int], tuple[str | None, str, int, str, str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.views or self.items or self.history)

    def item_rows(self) -> list[tuple[str, str, str, str | None, bool]]:
        return [(f, k, i, v, v is None) for (f, k, i), v in self.items.items()]

    def history_rows(self) -> list[tuple[Any, ...]]:
        return [(f, k, i, p, v, v is None, s, ver, e, a) for (f, k, i, p), (v, s, ver, e, a) in self.history.items()]


class ProjectionStorage(ABC):
    """The read-model tables of one store."""

    @abstractmethod
    def position(self, name: str) -> int:
        """Where the projection's rows stand in the log (0: nothing folded)."""

    @abstractmethod
    def state(self, name: str) -> tuple[int, int]:
        """(position, epoch): the epoch counts the drops, so a runner whose cache predates a
        rebuild notices even when the rebuild has come back to the same position."""

    @abstractmethod
    def commit(self, name: str, expected: int, new: int, batch: Batch, epoch: int = 0) -> None:
        """Writes the batch and moves the position from ``expected`` to ``new``, atomically.

        Raises PositionMoved (and writes nothing) when the position is not ``expected`` or the
        rows were dropped since ``epoch``.
        """

    @abstractmethod
    def drop(self, name: str) -> None:
        """Deletes the projection's rows, sets its position to 0 and starts a new epoch, atomically."""

    @abstractmethod
    def load_views(self, name: str, fold: str, keys: Sequence[str]) -> dict[str, Any]: ...

    @abstractmethod
    def load_items(self, name: str, fold: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Current (not removed) entries of the given keys' item views."""

    @abstractmethod
    def read_views(self, name: str, fold: str | None = None) -> dict[ViewId, Any]: ...

    @abstractmethod
    def read_items(self, name: str, fold: str | None = None) -> dict[ViewId, dict[str, Any]]: ...

    @abstractmethod
    def items_at(self, name: str, fold: str, key: str, position: int) -> dict[str, Any]:
        """The entries of one item view as they were once the log up to ``position`` was folded."""

    def read_at(self, position: int, reads: Sequence[tuple[str, str, str]]) -> tuple[dict[str, int], list[dict[str, Any]]]:
        """The positions of the projections read, and each (projection, fold, key) item view as of
        ``position`` — in one round trip where the store allows."""
        positions = {name: self.position(name) for name in dict.fromkeys(r[0] for r in reads)}
        return positions, [self.items_at(name, fold, key, position) for name, fold, key in reads]

    @abstractmethod
    def read_history(
        self, name: str, fold: str | None = None, key: str | None = None, *, after: int = 0, upto: int | None = None
    ) -> list[HistoryRow]:
        """Writes to item views with after < position <= upto, in log order."""

    @abstractmethod
    def names(self) -> list[str]:
        """Projections that have a position here."""

    def wait(self, name: str, position: int, timeout: float = 5.0) -> None:
        """Blocks until the projection has folded the log up to ``position`` (TimeoutError)."""
        self.tracking.wait(name, position, timeout=timeout)  # type: ignore[attr-defined]


_EPOCH = "#epoch"  # the tracking row of a projection's epoch is named after it, with this suffix


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# -- memory --------------------------------------------------------------------------------


class MemoryProjectionStorage(POPOTrackingRecorder, ProjectionStorage):
    """Rows in dicts (values kept as JSON text, as a database would), under the recorder's lock."""

    def __init__(self) -> None:
        super().__init__()
        self.tracking = self
        self._views: dict[str, dict[ViewId, str]] = {}
        self._items: dict[str, dict[ViewId, dict[str, str | None]]] = {}
        self._history: dict[str, list[tuple[Any, ...]]] = {}

    def create_table(self) -> None:
        pass

    def position(self, name: str) -> int:
        return self.max_tracking_id(name) or 0

    def state(self, name: str) -> tuple[int, int]:
        with self._database_lock:
            return self._max_tracking_ids[name] or 0, self._max_tracking_ids[name + _EPOCH] or 0

    def commit(self, name: str, expected: int, new: int, batch: Batch, epoch: int = 0) -> None:
        with self._database_lock:
            if (self._max_tracking_ids[name] or 0, self._max_tracking_ids[name + _EPOCH] or 0) != (expected, epoch):
                raise PositionMoved(name)
            views = self._views.setdefault(name, {})
            views.update(batch.views)
            items = self._items.setdefault(name, {})
            for (f, k, i), v in batch.items.items():
                items.setdefault((f, k), {})[i] = v
            self._history.setdefault(name, []).extend(batch.history_rows())
            self._insert_tracking(Tracking(name, new))

    def drop(self, name: str) -> None:
        with self._database_lock:
            self._views.pop(name, None)
            self._items.pop(name, None)
            self._history.pop(name, None)
            self._max_tracking_ids[name] = 0
            self._max_tracking_ids[name + _EPOCH] = (self._max_tracking_ids[name + _EPOCH] or 0) + 1

    def load_views(self, name: str, fold: str, keys: Sequence[str]) -> dict[str, Any]:
        with self._database_lock:
            views = self._views.get(name, {})
            return {k: json.loads(views[(fold, k)]) for k in keys if (fold, k) in views}

    def load_items(self, name: str, fold: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        with self._database_lock:
            items = self._items.get(name, {})
            out = {
                k: {i: json.loads(v) for i, v in items[(fold, k)].items() if v is not None}
                for k in keys
                if (fold, k) in items
            }
        return {k: entries for k, entries in out.items() if entries}

    def read_views(self, name: str, fold: str | None = None) -> dict[ViewId, Any]:
        with self._database_lock:
            return {vid: json.loads(v) for vid, v in self._views.get(name, {}).items() if fold in (None, vid[0])}

    def read_items(self, name: str, fold: str | None = None) -> dict[ViewId, dict[str, Any]]:
        with self._database_lock:
            out = {
                vid: {i: json.loads(v) for i, v in entries.items() if v is not None}
                for vid, entries in self._items.get(name, {}).items()
                if fold in (None, vid[0])
            }
        return {vid: entries for vid, entries in out.items() if entries}

    def items_at(self, name: str, fold: str, key: str, position: int) -> dict[str, Any]:
        with self._database_lock:
            rows = [r for r in self._history.get(name, ()) if r[0] == fold and r[1] == key and r[3] <= position]
        latest: dict[str, tuple[Any, ...]] = {}
        for r in rows:  # appended in log order
            latest[r[2]] = r
        return {i: json.loads(r[4]) for i, r in latest.items() if not r[5]}

    def read_history(
        self, name: str, fold: str | None = None, key: str | None = None, *, after: int = 0, upto: int | None = None
    ) -> list[HistoryRow]:
        with self._database_lock:
            rows = list(self._history.get(name, ()))
        return sorted(
            (
                HistoryRow(r[0], r[1], r[2], r[3], None if r[4] is None else json.loads(r[4]), *r[5:])
                for r in rows
                if fold in (None, r[0]) and key in (None, r[1]) and r[3] > after and (upto is None or r[3] <= upto)
            ),
            key=lambda r: (r.position, r.fold, r.key, r.item),
        )

    def names(self) -> list[str]:
        with self._database_lock:
            return sorted(
                n for n, p in self._max_tracking_ids.items()
                if p is not None and n != "__migration__" and not n.endswith(_EPOCH)
            )


# -- SQLite --------------------------------------------------------------------------------

_SQLITE_TABLES = [
    "CREATE TABLE IF NOT EXISTS chronicle_projection_views ("
    " projection TEXT NOT NULL, fold TEXT NOT NULL, key TEXT NOT NULL, view TEXT NOT NULL,"
    " PRIMARY KEY (projection, fold, key)) WITHOUT ROWID",
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


class SqliteProjectionStorage(SQLiteTrackingRecorder, ProjectionStorage):
    """Rows in the store's SQLite file; the tracking table is eventsourcing's ``tracking``."""

    def __init__(self, datastore: Any) -> None:
        super().__init__(datastore)
        self.tracking = self

    def construct_create_table_statements(self) -> list[str]:
        return [*super().construct_create_table_statements(), *_SQLITE_TABLES]

    def position(self, name: str) -> int:
        return self.max_tracking_id(name) or 0

    def state(self, name: str) -> tuple[int, int]:
        rows = dict(self._select(
            "SELECT application_name, notification_id FROM tracking WHERE application_name IN (?, ?)",
            [name, name + _EPOCH],
        ))
        return rows.get(name) or 0, rows.get(name + _EPOCH) or 0

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
                    (name, new, name + _EPOCH, epoch),
                )
            else:
                c.execute(
                    "UPDATE tracking SET notification_id = ? WHERE application_name = ? AND notification_id = ?"
                    f" AND {same_epoch} RETURNING notification_id",
                    (new, name, expected, name + _EPOCH, epoch),
                )
            if c.fetchone() is None:
                raise PositionMoved(name)
            if batch.views:
                c.executemany(
                    "INSERT INTO chronicle_projection_views VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (projection, fold, key) DO UPDATE SET view = excluded.view",
                    [(name, f, k, v) for (f, k), v in batch.views.items()],
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
                (name + _EPOCH,),
            )
            for table in ("views", "items", "history"):
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
        return {(f, k): json.loads(v) for f, k, v in rows}

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
        sql = (
            "SELECT fold, key, item, position, value, removed, session, version, event_id, author"
            " FROM chronicle_projection_history WHERE projection = ? AND position > ?"
        )
        params: list[Any] = [name, after]
        if fold is not None:
            sql += " AND fold = ?"
            params.append(fold)
        if key is not None:
            sql += " AND key = ?"
            params.append(key)
        if upto is not None:
            sql += " AND position <= ?"
            params.append(upto)
        rows = self._select(sql + " ORDER BY position, fold, key, item", params)
        return [
            HistoryRow(r[0], r[1], r[2], r[3], None if r[4] is None else json.loads(r[4]), bool(r[5]), *r[6:])
            for r in rows
        ]

    def names(self) -> list[str]:
        rows = self._select("SELECT application_name FROM tracking WHERE application_name != '__migration__'", [])
        return sorted(r[0] for r in rows if not r[0].endswith(_EPOCH))


# -- PostgreSQL ----------------------------------------------------------------------------

_PG_TRACKING = "chronicle_projection_tracking"
_PG_TABLES = [
    "CREATE TABLE IF NOT EXISTS chronicle_projection_views ("
    " projection text NOT NULL, fold text NOT NULL, key text NOT NULL, view jsonb NOT NULL,"
    " PRIMARY KEY (projection, fold, key))",
    "CREATE TABLE IF NOT EXISTS chronicle_projection_items ("
    " projection text NOT NULL, fold text NOT NULL, key text NOT NULL, item text NOT NULL,"
    " value jsonb, removed boolean NOT NULL DEFAULT false,"
    " PRIMARY KEY (projection, fold, key, item))",
    "CREATE TABLE IF NOT EXISTS chronicle_projection_history ("
    " projection text NOT NULL, fold text NOT NULL, key text NOT NULL, item text NOT NULL,"
    " position bigint NOT NULL, value jsonb, removed boolean NOT NULL DEFAULT false,"
    " session text NOT NULL, version bigint NOT NULL, event_id text NOT NULL, author text NOT NULL,"
    " PRIMARY KEY (projection, fold, key, item, position))",
]


class PostgresProjectionStorage(PostgresTrackingRecorder, ProjectionStorage):
    """Rows in the store's database; positions in eventsourcing's tracking table."""

    def __init__(self, datastore: Any) -> None:
        from psycopg.sql import SQL

        super().__init__(datastore, tracking_table_name=_PG_TRACKING)
        self.tracking = self
        self.sql_create_statements.extend(SQL(s).format() for s in _PG_TABLES)  # type: ignore[arg-type]

    def position(self, name: str) -> int:
        return self.max_tracking_id(name) or 0

    def commit(self, name: str, expected: int, new: int, batch: Batch, epoch: int = 0) -> None:
        # In one transaction: the position check first (it takes the tracking row's lock), then
        # history rows by COPY (they are only ever inserted), then views and entries as arrays
        # (one statement per table whatever the batch size), pipelined.
        with self.datastore.get_connection() as conn, conn.transaction(), conn.cursor() as curs:
            same_epoch = (
                f"COALESCE((SELECT notification_id FROM {_PG_TRACKING} WHERE application_name = %s), 0) = %s"
            )
            if expected == 0:
                curs.execute(
                    f"INSERT INTO {_PG_TRACKING} VALUES (%s, %s) ON CONFLICT (application_name) DO UPDATE"
                    f" SET notification_id = excluded.notification_id WHERE {_PG_TRACKING}.notification_id = 0"
                    f" AND {same_epoch} RETURNING notification_id",
                    (name, new, name + _EPOCH, epoch),
                )
            else:
                curs.execute(
                    f"UPDATE {_PG_TRACKING} SET notification_id = %s"
                    f" WHERE application_name = %s AND notification_id = %s AND {same_epoch} RETURNING notification_id",
                    (new, name, expected, name + _EPOCH, epoch),
                    prepare=True,
                )
            if curs.fetchone() is None:
                raise PositionMoved(name)
            if batch.history:
                with curs.copy(
                    "COPY chronicle_projection_history (projection, fold, key, item, position, value, removed,"
                    " session, version, event_id, author) FROM STDIN"
                ) as copy:
                    for row in batch.history_rows():
                        copy.write_row((name, *row))
            with conn.pipeline():
                if batch.views:
                    f, k, v = zip(*((f, k, v) for (f, k), v in batch.views.items()))
                    curs.execute(
                        "INSERT INTO chronicle_projection_views"
                        " SELECT %s, f, k, v::jsonb FROM unnest(%s::text[], %s::text[], %s::text[]) AS t(f, k, v)"
                        " ON CONFLICT (projection, fold, key) DO UPDATE SET view = excluded.view",
                        (name, list(f), list(k), list(v)),
                    )
                if batch.items:
                    columns = [list(c) for c in zip(*batch.item_rows())]
                    curs.execute(
                        "INSERT INTO chronicle_projection_items SELECT %s, f, k, i, v::jsonb, r"
                        " FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::bool[]) AS t(f, k, i, v, r)"
                        " ON CONFLICT (projection, fold, key, item)"
                        " DO UPDATE SET value = excluded.value, removed = excluded.removed",
                        (name, *columns),
                    )

    def drop(self, name: str) -> None:
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(
                f"INSERT INTO {_PG_TRACKING} VALUES (%s, 0) ON CONFLICT (application_name)"
                " DO UPDATE SET notification_id = 0",
                (name,),
            )
            curs.execute(
                f"INSERT INTO {_PG_TRACKING} VALUES (%s, 1) ON CONFLICT (application_name)"
                f" DO UPDATE SET notification_id = {_PG_TRACKING}.notification_id + 1",
                (name + _EPOCH,),
            )
            for table in ("views", "items", "history"):
                curs.execute(f"DELETE FROM chronicle_projection_{table} WHERE projection = %s", (name,))

    def _select(self, sql: str, params: Sequence[Any]) -> list[Any]:
        from psycopg.rows import tuple_row

        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            curs.execute(sql, params)
            return curs.fetchall()

    def load_views(self, name: str, fold: str, keys: Sequence[str]) -> dict[str, Any]:
        rows = self._select(
            "SELECT key, view FROM chronicle_projection_views WHERE projection = %s AND fold = %s AND key = ANY(%s)",
            [name, fold, list(keys)],
        )
        return dict(rows)

    def load_items(self, name: str, fold: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        rows = self._select(
            "SELECT key, item, value FROM chronicle_projection_items WHERE projection = %s AND fold = %s"
            " AND NOT removed AND key = ANY(%s)",
            [name, fold, list(keys)],
        )
        out: dict[str, dict[str, Any]] = {}
        for key, item, value in rows:
            out.setdefault(key, {})[item] = value
        return out

    def read_views(self, name: str, fold: str | None = None) -> dict[ViewId, Any]:
        sql = "SELECT fold, key, view FROM chronicle_projection_views WHERE projection = %s"
        rows = self._select(sql + (" AND fold = %s" if fold else ""), [name, fold] if fold else [name])
        return {(f, k): v for f, k, v in rows}

    def read_items(self, name: str, fold: str | None = None) -> dict[ViewId, dict[str, Any]]:
        sql = "SELECT fold, key, item, value FROM chronicle_projection_items WHERE projection = %s AND NOT removed"
        rows = self._select(sql + (" AND fold = %s" if fold else ""), [name, fold] if fold else [name])
        out: dict[ViewId, dict[str, Any]] = {}
        for f, k, i, v in rows:
            out.setdefault((f, k), {})[i] = v
        return out

    def items_at(self, name: str, fold: str, key: str, position: int) -> dict[str, Any]:
        rows = self._select(
            "SELECT i.item, h.value, h.removed FROM chronicle_projection_items i CROSS JOIN LATERAL ("
            "  SELECT value, removed FROM chronicle_projection_history h WHERE h.projection = i.projection"
            "  AND h.fold = i.fold AND h.key = i.key AND h.item = i.item AND h.position <= %s"
            "  ORDER BY h.position DESC LIMIT 1) h"
            " WHERE i.projection = %s AND i.fold = %s AND i.key = %s",
            [position, name, fold, key],
        )
        return {item: value for item, value, removed in rows if not removed}

    def read_at(self, position: int, reads: Sequence[tuple[str, str, str]]) -> tuple[dict[str, int], list[dict[str, Any]]]:
        sql, params = self.read_at_query("%s", [position], reads)
        _, positions, views = self.parse_read_at(self._select(sql, params), reads)
        return positions, views

    def read_at_query(
        self, position_sql: str, position_params: list[Any], reads: Sequence[tuple[str, str, str]]
    ) -> tuple[str, list[Any]]:
        """One statement reading the positions and the item views as of a position given by an
        SQL expression (so it can be pipelined with the reads that locate that position)."""
        sql = [
            f"WITH p AS (SELECT ({position_sql})::bigint AS position)"
            " SELECT -2, '', to_jsonb(position), false FROM p",
            f"SELECT -1, application_name, to_jsonb(notification_id), false FROM {_PG_TRACKING}"
            " WHERE application_name = ANY(%s)",
        ]
        params: list[Any] = [*position_params, list(dict.fromkeys(r[0] for r in reads))]
        for n, (name, fold, key) in enumerate(reads):
            sql.append(
                f"SELECT {n}, i.item, h.value, h.removed FROM chronicle_projection_items i CROSS JOIN LATERAL ("
                "  SELECT value, removed FROM chronicle_projection_history h WHERE h.projection = i.projection"
                "  AND h.fold = i.fold AND h.key = i.key AND h.item = i.item AND h.position <= (SELECT position FROM p)"
                "  ORDER BY h.position DESC LIMIT 1) h"
                " WHERE i.projection = %s AND i.fold = %s AND i.key = %s"
            )
            params += [name, fold, key]
        return " UNION ALL ".join(sql), params

    @staticmethod
    def parse_read_at(
        rows: Iterable[tuple[Any, ...]], reads: Sequence[tuple[str, str, str]]
    ) -> tuple[int | None, dict[str, int], list[dict[str, Any]]]:
        position: int | None = None
        positions: dict[str, int] = {r[0]: 0 for r in reads}
        views: list[dict[str, Any]] = [{} for _ in reads]
        for n, item, value, removed in rows:
            if n == -2:
                position = value
            elif n == -1:
                positions[item] = value
            elif not removed:
                views[n][item] = value
        return position, positions, views

    def read_history(
        self, name: str, fold: str | None = None, key: str | None = None, *, after: int = 0, upto: int | None = None
    ) -> list[HistoryRow]:
        sql = (
            "SELECT fold, key, item, position, value, removed, session, version, event_id, author"
            " FROM chronicle_projection_history WHERE projection = %s AND position > %s"
        )
        params: list[Any] = [name, after]
        if fold is not None:
            sql += " AND fold = %s"
            params.append(fold)
        if key is not None:
            sql += " AND key = %s"
            params.append(key)
        if upto is not None:
            sql += " AND position <= %s"
            params.append(upto)
        rows = self._select(sql + " ORDER BY position, fold, key, item", params)
        return [HistoryRow(*r) for r in rows]

    def names(self) -> list[str]:
        rows = self._select(f"SELECT application_name FROM {_PG_TRACKING} WHERE application_name != '__migration__'", [])
        return sorted(r[0] for r in rows if not r[0].endswith(_EPOCH))

    def state(self, name: str) -> tuple[int, int]:
        rows = dict(self._select(
            f"SELECT application_name, notification_id FROM {_PG_TRACKING} WHERE application_name IN (%s, %s)",
            [name, name + _EPOCH],
        ))
        return rows.get(name) or 0, rows.get(name + _EPOCH) or 0


def _chunks(seq: Sequence[str], n: int) -> Iterable[Sequence[str]]:
    for i in range(0, len(seq), n):
        yield seq[i : i + n]


# -- one storage per store -----------------------------------------------------------------

_storages: "weakref.WeakKeyDictionary[Any, ProjectionStorage]" = weakref.WeakKeyDictionary()
_storages_lock = threading.Lock()


def storage_for(store: Store) -> ProjectionStorage:
    """The read-model tables of a store (created on first use; one object per store)."""
    recorder = store.recorder
    with _storages_lock:
        storage = _storages.get(recorder)
        if storage is not None:
            return storage
        if isinstance(recorder, PostgresApplicationRecorder):
            storage = PostgresProjectionStorage(recorder.datastore)
        elif isinstance(recorder, SQLiteApplicationRecorder):
            storage = SqliteProjectionStorage(recorder.datastore)
        elif isinstance(recorder, POPOApplicationRecorder):
            storage = MemoryProjectionStorage()
        else:
            raise StoreError(f"Projections cannot be stored next to a {type(recorder).__name__}")
        for attempt in range(3):
            try:
                storage.create_table()  # type: ignore[attr-defined]
                break
            except (IntegrityError, ProgrammingError):
                # Two processes creating the same tables at once: the loser retries.
                if attempt == 2:
                    raise
        _storages[recorder] = storage
        return storage
