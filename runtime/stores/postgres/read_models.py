"""Read-model rows and positions for PostgreSQL stores (the interface: runtime/stores/projection_storage.py)."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from eventsourcing.postgres import PostgresTrackingRecorder
from psycopg.rows import tuple_row
from psycopg.sql import SQL

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


_PG_TRACKING = "chronicle_projection_tracking"
_PG_TABLES = [
    "CREATE TABLE IF NOT EXISTS chronicle_projection_views ("
    " projection text NOT NULL, fold text NOT NULL, key text NOT NULL, view jsonb NOT NULL,"
    " PRIMARY KEY (projection, fold, key))",
    "CREATE TABLE IF NOT EXISTS chronicle_projection_search ("
    " projection text NOT NULL, fold text NOT NULL, key text NOT NULL, text text NOT NULL,"
    " sort_key double precision NOT NULL DEFAULT 0, PRIMARY KEY (projection, fold, key))",
    # A table made before texts had an order gets its column (a lock only when it lacks it).
    "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
    " AND table_name = 'chronicle_projection_search' AND column_name = 'sort_key') THEN"
    " ALTER TABLE chronicle_projection_search ADD COLUMN sort_key double precision NOT NULL DEFAULT 0; END IF; END $$",
    # Texts are read in search order (keys compared as bytes, as Python compares them) from a
    # page's cursor, and stop at its end.
    "CREATE INDEX IF NOT EXISTS chronicle_projection_search_order"
    ' ON chronicle_projection_search (projection, fold, sort_key, key COLLATE "C")',
    # Searched with LIKE, which a trigram index serves where the database has pg_trgm (an
    # operator's CREATE EXTENSION); without it, a scan of the rows the query names.
    "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN"
    " CREATE INDEX IF NOT EXISTS chronicle_projection_search_trgm ON chronicle_projection_search"
    " USING gin (text gin_trgm_ops); END IF; END $$",
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


# A whole-store search: the planner reads the texts in order from the cursor (the order index)
# until the page is full, or, for a rare text, finds its rows (the trigram index) and sorts those.
_SEARCH_ALL = (
    "SELECT sort_key, key FROM chronicle_projection_search WHERE projection = %s AND fold = %s"
    ' AND (sort_key, key COLLATE "C") > (%s, %s) AND text LIKE %s ORDER BY sort_key, key COLLATE "C" LIMIT %s'
)
# A search among given keys: each key's row sought by its primary key (a subquery that cannot be
# flattened: a planner that has not yet counted the rows would otherwise read every text,
# looking for the keys), then the matches sorted.
_SEARCH_AMONG = (
    "SELECT s.sort_key, s.key FROM unnest(%s::text[]) AS k(key) CROSS JOIN LATERAL"
    " (SELECT sort_key, key, text FROM chronicle_projection_search"
    "  WHERE projection = %s AND fold = %s AND key = k.key LIMIT 1) AS s"
    ' WHERE (s.sort_key, s.key COLLATE "C") > (%s, %s) AND s.text LIKE %s'
    ' ORDER BY s.sort_key, s.key COLLATE "C" LIMIT %s'
)


class PostgresProjectionStorage(PostgresTrackingRecorder, ProjectionStorage):
    """Rows in the store's database; positions in eventsourcing's tracking table."""

    def __init__(self, datastore: Any) -> None:
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
                    (name, new, name + EPOCH_SUFFIX, epoch),
                )
            else:
                curs.execute(
                    f"UPDATE {_PG_TRACKING} SET notification_id = %s"
                    f" WHERE application_name = %s AND notification_id = %s AND {same_epoch} RETURNING notification_id",
                    (new, name, expected, name + EPOCH_SUFFIX, epoch),
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
                if batch.search:
                    f, k, t, o = zip(*((f, k, t, o) for (f, k), (t, o) in batch.search.items()))
                    curs.execute(
                        "INSERT INTO chronicle_projection_search"
                        " SELECT %s, f, k, t, o FROM unnest(%s::text[], %s::text[], %s::text[], %s::float8[]) AS s(f, k, t, o)"
                        " ON CONFLICT (projection, fold, key) DO UPDATE SET text = excluded.text, sort_key = excluded.sort_key"
                        " WHERE chronicle_projection_search.text != excluded.text"  # unchanged: no new row version
                        " OR chronicle_projection_search.sort_key != excluded.sort_key",
                        (name, list(f), list(k), list(t), list(o)),
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
                (name + EPOCH_SUFFIX,),
            )
            for table in ("views", "search", "items", "history"):
                curs.execute(f"DELETE FROM chronicle_projection_{table} WHERE projection = %s", (name,))

    def _select(self, sql: str, params: Sequence[Any]) -> list[Any]:
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            curs.execute(sql, params)
            return curs.fetchall()

    def load_views(self, name: str, fold: str, keys: Sequence[str]) -> dict[str, Any]:
        # Each key sought by its primary key (as ``_SEARCH_AMONG`` does, for the same reason).
        rows = self._select(
            "SELECT v.key, v.view FROM unnest(%s::text[]) AS k(key) CROSS JOIN LATERAL"
            " (SELECT key, view FROM chronicle_projection_views WHERE projection = %s AND fold = %s AND key = k.key"
            "  LIMIT 1) AS v",
            [list(keys), name, fold],
        )
        return dict(rows)

    def search(self, name: str, fold: str, text: str, keys: Sequence[str] | None = None, *,
               after: SearchMark | None = None, limit: int) -> list[SearchMark]:
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        if keys is None:
            rows = self._select(_SEARCH_ALL, [name, fold, *(after or START), pattern, limit])
        else:
            rows = self._select(_SEARCH_AMONG, [list(keys), name, fold, *(after or START), pattern, limit])
        return [tuple(r) for r in rows]

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
        sql, params = history_sql("%s", name, fold, key, after, upto)
        rows = self._select(sql, params)
        return [HistoryRow(*r) for r in rows]

    def names(self) -> list[str]:
        rows = self._select(f"SELECT application_name FROM {_PG_TRACKING} WHERE application_name != '__migration__'", [])
        return sorted(r[0] for r in rows if not r[0].endswith(EPOCH_SUFFIX))

    def state(self, name: str) -> tuple[int, int]:
        rows = dict(self._select(
            f"SELECT application_name, notification_id FROM {_PG_TRACKING} WHERE application_name IN (%s, %s)",
            [name, name + EPOCH_SUFFIX],
        ))
        return rows.get(name) or 0, rows.get(name + EPOCH_SUFFIX) or 0
