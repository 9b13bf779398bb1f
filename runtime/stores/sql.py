"""What the two SQL backends share: building a read's optional filters, and reading a log's rows."""

from __future__ import annotations

from typing import Any, Callable, Sequence
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from runtime.stores.rows import CatalogRow


def sql_filters(mark: str, conditions: Sequence[tuple[str, Any]]) -> tuple[str, list[Any]]:
    """`` AND column op <mark>`` for each (``"column op"``, value) whose value is not None,
    and those values: the optional filters of a SQL read, ``mark`` being the driver's
    placeholder."""
    present = [(condition, value) for condition, value in conditions if value is not None]
    return "".join(f" AND {condition} {mark}" for condition, _ in present), [value for _, value in present]


def select_events_sql(
    table: str, mark: str, log_id: Any, gt: int | None, lte: int | None, desc: bool, limit: int | None
) -> tuple[str, list[Any]]:
    """The query the SQL stores read a log's events with: the three columns a reader needs
    (the library's version reads them all into dict rows and parses each row's id again),
    ``mark`` being the driver's placeholder."""
    where, params = sql_filters(mark, [("originator_version >", gt), ("originator_version <=", lte)])
    sql = f"SELECT originator_version, topic, state FROM {table} WHERE originator_id = {mark}{where}"
    sql += " ORDER BY originator_version DESC" if desc else " ORDER BY originator_version"
    if limit is not None:
        sql += f" LIMIT {mark}"
        params.append(limit)
    return sql, [log_id, *params]


class RowReads:
    """``select_events`` for a SQL adapter, on top of its ``select_rows``."""

    def select_rows(
        self, log_id: UUID, *, gt: int | None = None, lte: int | None = None, desc: bool = False,
        limit: int | None = None,
    ) -> list[tuple[int, str, bytes]]:
        raise NotImplementedError

    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        log_id = originator_id if isinstance(originator_id, UUID) else UUID(originator_id)
        rows = self.select_rows(log_id, gt=gt, lte=lte, desc=desc, limit=limit)
        return [StoredEvent(log_id, version, topic, state) for version, topic, state in rows]


def log_batch_of(
    log_ids: Sequence[UUID], events: Sequence[tuple[Any, int, str, bytes]],
    snapshots: Sequence[tuple[Any, int, str, bytes]], claims: Sequence[tuple[Any, str, int]],
    catalog: Sequence[CatalogRow], as_raw: Callable[[UUID], Any],
) -> Any:
    """A ``LogBatch`` from the rows of the four reads (``(log id, version, topic, payload)``,
    each log's in version order, ``(log id, event id, version)`` and catalog rows), whose log ids
    are as ``as_raw`` writes a UUID (text: a UUID object per row costs more than the row)."""
    from runtime.stores.base import LogBatch

    batch = LogBatch({i: [] for i in log_ids}, {i: [] for i in log_ids}, {i: {} for i in log_ids},
                     {row.log_id: row for row in catalog})
    as_id = {as_raw(i): i for i in log_ids}.__getitem__
    for kind, rows in ((batch.events, events), (batch.snapshots, snapshots)):
        for raw_id, version, topic, state in rows:
            log_id = as_id(raw_id)
            kind[log_id].append(StoredEvent(log_id, version, topic, state))
    for raw_id, event_id, version in claims:
        batch.claims[as_id(raw_id)][event_id] = version
    return batch


def history_sql(
    mark: str, name: str, fold: str | None, key: str | None, after: int, upto: int | None
) -> tuple[str, list[Any]]:
    """The query the SQL read-model storages read a projection's history with; rows come as
    ``HistoryRow`` fields, in position order."""
    where, params = sql_filters(mark, [("fold =", fold), ("key =", key), ("position <=", upto)])
    sql = (
        "SELECT fold, key, item, position, value, removed, session, version, event_id, author"
        f" FROM chronicle_projection_history WHERE projection = {mark} AND position > {mark}{where}"
    )
    return sql + " ORDER BY position, fold, key, item", [name, after, *params]


MEMORY_DOC_COLUMNS = "source, position, event_id, session_id, invocation_id, author, timestamp, content, hidden"


class MemorySql:
    """The memory index's statements that both SQL stores run, ``mark`` being the driver's
    placeholder and ``false`` the database's word for it."""

    def __init__(self, mark: str, false: str):
        m = mark
        self.mark, self.false = mark, false
        self.sources = (
            "SELECT source, session_id, position, rewinds FROM chronicle_memory_sources"
            f" WHERE app_name = {m} AND user_id = {m}"
        )
        self.add_source = f"INSERT INTO chronicle_memory_sources VALUES ({m}, {m}, {m}, {m}, 0, '[]') ON CONFLICT DO NOTHING"
        # Moves a source on only from where this catch-up found it: a racing one matches no row.
        self.move_source = (
            f"UPDATE chronicle_memory_sources SET position = {m}, rewinds = {m}"
            f" WHERE app_name = {m} AND user_id = {m} AND source = {m} AND position = {m}"
        )
        self.documents = (
            f"SELECT {MEMORY_DOC_COLUMNS} FROM chronicle_memory_docs WHERE app_name = {m} AND user_id = {m}"
            " ORDER BY source, position"
        )

    def hide(self, source: str, ranges: Sequence[tuple[int, int]]) -> tuple[str, list[Any]]:
        """Flags the source's documents hidden or visible as its rewinds' ``ranges`` now say."""
        hidden = " OR ".join(f"position BETWEEN {self.mark} AND {self.mark}" for _ in ranges) or self.false
        sql = f"UPDATE chronicle_memory_docs SET hidden = ({hidden}) WHERE source = {self.mark}"
        return sql, [*[v for r in ranges for v in r], source]
