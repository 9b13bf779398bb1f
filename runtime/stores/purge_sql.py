"""The statements a purge runs: what SQLite and PostgreSQL share (each store package has the
rest, and ``Store.purge_statements()`` gives a store's; the plan is runtime/operations/purge.py's).
SQL against Chronicle's tables lives only under runtime/stores/."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional, Protocol, Sequence
from uuid import UUID

if TYPE_CHECKING:
    from runtime.stores.base import Store


class PurgeScope(Protocol):
    """What the statements read of a purge's plan (runtime/operations/purge.py's PurgePlan)."""

    app_name: str
    user_id: Optional[str]
    session_id: Optional[str]
    sessions: Sequence[Any]  # each with its catalog row: `.row`


def _marks(values: list[Any]) -> str:
    return ", ".join(["{p}"] * len(values))


class PurgeSql:
    """The few statements a purge runs, for SQLite and PostgreSQL."""

    ph = "?"

    def __init__(self, store: Store):
        self.store = store
        self.recorder = store.recorder

    def run(self, c: Any, sql: str, params: list[Any]) -> int:
        """Runs a statement (``{p}`` marks its parameters); how many rows it touched."""
        raise NotImplementedError

    def max_version(self, c: Any, log_id: UUID) -> int:
        c.execute(
            f"SELECT MAX(originator_version) FROM chronicle_events WHERE originator_id = {self.ph}", [self.id(log_id)]
        )
        row = c.fetchone()
        value = row[0] if not isinstance(row, dict) else next(iter(row.values()))
        return int(value or 0)

    def delete_logs(self, c: Any, logs: list[UUID], sessions: list[UUID], app_name: str,
                    user_id: str | None) -> dict[str, int]:
        """Every row of the purged logs (their events and snapshots; the sessions' event-id claims and
        catalog rows) and, for a whole user (``user_id``), the user's scoped values: counts by kind."""
        counts = {
            "stored_events": sum(
                self.run(c, "DELETE FROM chronicle_events WHERE originator_id = {p}", [self.id(i)]) for i in logs),
            "snapshots": sum(
                self.run(c, "DELETE FROM chronicle_snapshots WHERE originator_id = {p}", [self.id(i)]) for i in logs),
            "event_ids": sum(
                self.run(c, "DELETE FROM chronicle_event_ids WHERE log_id = {p}", [self.id(i)]) for i in sessions),
            "catalog_rows": sum(
                self.run(c, "DELETE FROM chronicle_sessions WHERE log_id = {p}", [self.id(i)]) for i in sessions),
        }
        if user_id is not None:
            counts["user_state_rows"] = self.run(
                c, "DELETE FROM chronicle_scoped_state WHERE app_name = {p} AND user_id = {p}", [app_name, user_id],
            )
        return counts

    def purge_memory(self, c: Any, store: Store, plan: PurgeScope) -> dict[str, int]:
        """The memory index's documents and sources of the purged sessions (or of the user)."""
        if not self.has_table(c, "chronicle_memory_docs"):
            return {}
        from projections.memory import external_source
        from domain.memory_log import memory_log_id

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
        from domain.memory_log import MemoryLog

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
