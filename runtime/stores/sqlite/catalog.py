"""A SQLite store's session catalog (``chronicle_sessions``): its query, and a reader of it on a
sqlite3 connection of its own that only queries.

Listing sessions needs one table. Opening the whole store for it imports eventsourcing, pydantic-core
and the session log's classes, most of a short command's time (``chronicle sessions``); the catalog
reader imports sqlite3 alone. The store's recorder runs the same query (``catalog_query``)."""

from __future__ import annotations

import json
import os
import sqlite3
import urllib.parse
from typing import Any, Sequence
from uuid import UUID

from runtime.stores import catalog_sql
from runtime.stores.rows import CatalogRow
from runtime.stores.sqlite.files import not_writable, read_only_option, sqlite_path

def catalog_query(app_name: str | None, user_id: str | None, log_id: UUID | None,
                  session_id: str | None) -> tuple[str, list[Any]]:
    return catalog_sql.catalog_query("?", app_name, user_id, log_id and log_id.hex, session_id)


def catalog_rows(rows: Sequence[Sequence[Any]]) -> list[CatalogRow]:
    return [
        CatalogRow(UUID(r[0]), r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), json.loads(r[8] or "{}"))
        for r in rows
    ]


class SqliteCatalog(catalog_sql.CatalogReader):
    """The catalog of a SQLite store file, queried only."""

    def select_catalog(
        self, app_name: str | None = None, user_id: str | None = None, *, log_id: UUID | None = None,
        session_id: str | None = None,
    ) -> list[CatalogRow]:
        try:
            return catalog_rows(self._connection.execute(*catalog_query(app_name, user_id, log_id, session_id)).fetchall())
        except sqlite3.Error as error:
            from runtime.stores.sqlite.errors import driver_error  # the store's typed errors: on failure only

            raise driver_error(error) from error  # type: ignore[misc]


def open_sqlite_catalog(url_or_path: str) -> SqliteCatalog | None:
    """The catalog of an existing store file that may be written; None wherever only opening the
    store can say what to do (in memory, read-only, no such file, a file that is not a store yet):
    the caller opens the store instead. The connection is the store's kind (read-write, so the last
    one to close tidies the WAL files away as the store's do) but runs queries only."""
    path, read_only = read_only_option(sqlite_path(url_or_path))
    if read_only or path == ":memory:" or not os.path.isfile(path) or not_writable(path):
        return None
    try:
        connection = sqlite3.connect(f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=rw", uri=True, timeout=30)
    except sqlite3.Error:
        return None
    try:
        connection.execute("PRAGMA query_only = 1")
        connection.execute("SELECT 1 FROM chronicle_sessions LIMIT 0")
    except sqlite3.Error:
        connection.close()
        return None
    return SqliteCatalog(connection)
