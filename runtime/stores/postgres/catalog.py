"""A PostgreSQL store's session catalog (``chronicle_sessions``): its query, and a reader of it on
one psycopg connection of its own, read-only.

Listing sessions needs one table. Opening the whole store for it imports eventsourcing, its pool,
pydantic-core and the session log's classes and fills a pool (``chronicle sessions``); the catalog
reader imports psycopg alone. The store's recorder runs the same query (``catalog_query``)."""

from __future__ import annotations

from typing import Any, Sequence
from uuid import UUID

import psycopg

from runtime.stores import catalog_sql
from runtime.stores.postgres.connect import parse_postgres_url
from runtime.stores.rows import CatalogRow

def catalog_query(app_name: str | None, user_id: str | None, log_id: UUID | None,
                  session_id: str | None) -> tuple[str, list[Any]]:
    return catalog_sql.catalog_query("%s", app_name, user_id, log_id, session_id)


def catalog_rows(rows: Sequence[Sequence[Any]]) -> list[CatalogRow]:
    """Rows of ``CATALOG_COLUMNS`` as tuples (the driver reads the uuid, the boolean and the JSON)."""
    return [CatalogRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8] or {}) for r in rows]


class PostgresCatalog(catalog_sql.CatalogReader):
    """The catalog of a PostgreSQL store, on a read-only connection."""

    def select_catalog(
        self, app_name: str | None = None, user_id: str | None = None, *, log_id: UUID | None = None,
        session_id: str | None = None,
    ) -> list[CatalogRow]:
        try:
            with self._connection.cursor() as curs:
                curs.execute(*catalog_query(app_name, user_id, log_id, session_id))
                return catalog_rows(curs.fetchall())
        except psycopg.Error as error:
            from runtime.stores.postgres.errors import driver_error  # the store's typed errors: on failure only

            raise driver_error(error) from error  # type: ignore[misc]


def open_postgres_catalog(url: str) -> PostgresCatalog | None:
    """The catalog of a store whose tables are there, on a read-only connection; None where only
    opening the store can say what to do (a database without Chronicle's tables yet, a server this
    connection cannot reach): the caller opens the store instead."""
    try:
        connection = psycopg.connect(**parse_postgres_url(url), connect_timeout=5, autocommit=True)
    except psycopg.Error:
        return None
    try:
        connection.execute("SET default_transaction_read_only = on")
        connection.execute("SELECT 1 FROM chronicle_sessions LIMIT 0")
    except psycopg.Error:
        connection.close()
        return None
    return PostgresCatalog(connection)
