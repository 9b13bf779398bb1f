"""The session catalog (``chronicle_sessions``) as the SQL stores read it: the query, and a reader of
it alone on a connection of its own (``open_catalog``), which each backend completes with its
driver's call, row decoding and typed errors. SQL against Chronicle's tables lives only under
runtime/stores/."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from runtime.stores.rows import CatalogRow

CATALOG_COLUMNS = "log_id, app_name, user_id, session_id, created_time, last_update_time, version, deleted, state"


def catalog_query(mark: str, app_name: str | None, user_id: str | None, log_id: Any,
                  session_id: str | None) -> tuple[str, list[Any]]:
    """Every session (deleted ones too), filtered by app, user and session id, or one by its log id
    (as the driver stores it), oldest update first: the SQL, with `mark` as the driver's
    placeholder, and its parameters."""
    sql = f"SELECT {CATALOG_COLUMNS} FROM chronicle_sessions WHERE 1 = 1"
    params: list[Any] = []
    for column, value in (("app_name", app_name), ("user_id", user_id), ("log_id", log_id),
                          ("session_id", session_id)):
        if value is not None:
            sql += f" AND {column} = {mark}"
            params.append(value)
    return sql + " ORDER BY last_update_time", params


class CatalogReader:
    """A store's session catalog on a connection of its own: what ``LogReader``'s catalog reads
    (``sessions``, ``session``, ``apps``) ask of a store's recorder, and nothing else."""

    def __init__(self, connection: Any):
        self._connection = connection

    @property
    def recorder(self) -> CatalogReader:  # what LogReader reads through
        return self

    def select_catalog(
        self, app_name: str | None = None, user_id: str | None = None, *, log_id: UUID | None = None,
        session_id: str | None = None,
    ) -> list[CatalogRow]:
        raise NotImplementedError  # the backend's query on its driver

    def close(self) -> None:
        self._connection.close()

