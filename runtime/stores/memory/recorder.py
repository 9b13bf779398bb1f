"""The in-memory store: eventsourcing's POPO recorder plus the derived rows, under its lock."""

from __future__ import annotations

import json
from typing import Any, Iterable, Sequence
from uuid import UUID

from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.popo import POPOApplicationRecorder

from runtime.stores.base import CatalogRow, Listing, ScopedReads, SideRows


class MemoryLogRecorder(ScopedReads, POPOApplicationRecorder):
    def __init__(self) -> None:
        super().__init__()
        self._claims: dict[tuple[UUID, str], int] = {}
        self._catalog: dict[UUID, CatalogRow] = {}
        self._scoped: dict[tuple[str, str], dict[str, str]] = {}  # values as JSON text
        self._index_keys: dict[UUID, str] = {}  # the library indexes logs by their id's text

    def _index_key(self, log_id: UUID) -> str:
        return self._index_keys.get(log_id) or self._index_keys.setdefault(log_id, str(log_id))

    def _insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        # The library's checks and writes in one pass, each log's index looked up once (an
        # in-memory append is mostly bookkeeping); everything is checked before anything
        # is written.
        side: SideRows = kwargs.get("side") or SideRows()
        claims, catalog, stored = self._claims, self._catalog, self._stored_events
        with self._database_lock:
            placed = [(self._stored_events_index[self._index_key(s.originator_id)], s) for s in stored_events]
            if len(placed) > 1 and len({(id(index), s.originator_version) for index, s in placed}) < len(placed):
                raise IntegrityError(f"Stored events are not unique: {stored_events}")
            for index, s in placed:
                if s.originator_version in index:
                    raise IntegrityError(f"Stored event already recorded: {stored_events}")
            for claim in side.claims:
                if claim[:2] in claims:
                    raise IntegrityError(f"Event {claim[1]!r} already recorded")
            for index, s in placed:
                index[s.originator_version] = len(stored)
                stored.append(s)
            for log_id, event_id, version in side.claims:
                claims[(log_id, event_id)] = version
            for row in side.new_sessions:
                catalog[row.log_id] = row
            for row in side.updated_sessions:
                if row.state is None:  # state unchanged by this write: keep the stored one
                    row.state = catalog[row.log_id].state  # (the row is this write's own)
                catalog[row.log_id] = row
            for app_name, user_id, key, value in side.sorted_scoped() if side.scoped else ():
                self._scoped.setdefault((app_name, user_id), {})[key] = json.dumps(value)
        return None

    def select_events(
        self, originator_id: UUID | str, *, gt: int | None = None, lte: int | None = None,
        desc: bool = False, limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        # The library walks a log's whole index for every read, so catching up on the
        # newest events cost O(history). A log's versions here run first..last with no
        # gaps (nothing is removed from memory), so a window is a range.
        with self._database_lock:
            index = self._stored_events_index.get(str(originator_id))
            if not index:
                return []
            first, last = next(iter(index)), next(reversed(index))
            if last - first + 1 != len(index):
                return super().select_events(originator_id, gt=gt, lte=lte, desc=desc, limit=limit)
            low = first if gt is None else max(first, gt + 1)
            high = last if lte is None else min(last, lte)
            versions = range(high, low - 1, -1) if desc else range(low, high + 1)
            if limit is not None:
                versions = versions[:limit]
            return [self._stored_events[index[v]] for v in versions]

    def at_versions(self, log_id: UUID, versions: Iterable[int]) -> list[tuple[int, int, StoredEvent]]:
        """(version, log position, stored event) of a log's events at those versions."""
        with self._database_lock:
            index = self._stored_events_index.get(str(log_id), {})
            return [(v, index[v] + 1, self._stored_events[index[v]]) for v in versions if v in index]

    def select_rows(
        self, log_id: UUID, *, gt: int | None = None, lte: int | None = None, desc: bool = False,
        limit: int | None = None,
    ) -> list[tuple[int, str, bytes]]:
        events = self.select_events(log_id, gt=gt, lte=lte, desc=desc, limit=limit)
        return [(e.originator_version, e.topic, e.state) for e in events]

    def find_claim(self, log_id: UUID, event_id: str) -> int | None:
        with self._database_lock:
            return self._claims.get((log_id, event_id))

    def select_claims(self, log_id: UUID, event_ids: Sequence[str] | None = None) -> dict[str, int]:
        with self._database_lock:
            if event_ids is not None:
                claims = self._claims
                return {i: claims[(log_id, i)] for i in event_ids if (log_id, i) in claims}
            return {event_id: version for (claimed, event_id), version in self._claims.items() if claimed == log_id}

    def count_claims(self, log_id: UUID) -> int:
        with self._database_lock:
            return sum(1 for claimed, _ in self._claims if claimed == log_id)

    def select_listing(self, app_name: str, user_id: str | None) -> list[Listing]:
        with self._database_lock:
            rows = [
                (r.session_id, r.user_id, r.last_update_time, r.version, r.state or {})
                for r in self._catalog.values()
                if r.app_name == app_name and not r.deleted and (user_id is None or r.user_id == user_id)
            ]
        return sorted(rows, key=lambda r: r[2])

    def select_catalog(
        self, app_name: str | None = None, user_id: str | None = None, *, log_id: UUID | None = None,
        session_id: str | None = None,
    ) -> list[CatalogRow]:
        with self._database_lock:
            if log_id is not None:
                row = self._catalog.get(log_id)
                return [] if row is None else [row]
            rows = [
                r
                for r in self._catalog.values()
                if (app_name is None or r.app_name == app_name) and (user_id is None or r.user_id == user_id)
                and (session_id is None or r.session_id == session_id)
            ]
        return sorted(rows, key=lambda r: r.last_update_time)

    def select_scoped_rows(self, app_name: str, user_id: str | None) -> dict[str, dict[str, Any]]:
        with self._database_lock:
            if user_id is None:
                rows = [(u, dict(values)) for (app, u), values in self._scoped.items() if app == app_name]
            else:  # the hot path (every get_session): two lookups
                rows = [(u, dict(self._scoped[(app_name, u)])) for u in ("", user_id) if (app_name, u) in self._scoped]
        return {u: {k: json.loads(v) for k, v in values.items()} for u, values in rows}
