"""The rows a recorder writes with each append, beside its events (see runtime/stores/base.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID


@dataclass
class CatalogRow:
    log_id: UUID
    app_name: str
    user_id: str
    session_id: str
    created_time: float
    last_update_time: float
    version: int
    deleted: bool = False
    state: dict[str, Any] | None = None  # None: unchanged by this write


# What list_sessions shows of a session: (session id, user id, last update, version, state).
# The state is a dict, or its JSON text where decoding is left to the caller.
Listing = tuple[str, str, float, int, Any]


@dataclass(init=False)
class SideRows:
    """The derived rows one append (or one group of appends) writes along with its events."""

    claims: list[tuple[UUID, str, int]]  # (log, event id, version)
    new_sessions: list[CatalogRow]
    updated_sessions: list[CatalogRow]
    scoped: list[tuple[str, str, str, Any]]  # (app, user|'', key, value)

    def __init__(
        self, claims: list[tuple[UUID, str, int]] | None = None, new_sessions: list[CatalogRow] | None = None,
        updated_sessions: list[CatalogRow] | None = None, scoped: list[tuple[str, str, str, Any]] | None = None,
    ):
        # Written out: a dataclass's default factories are a share of an in-memory append.
        self.claims = [] if claims is None else claims
        self.new_sessions = [] if new_sessions is None else new_sessions
        self.updated_sessions = [] if updated_sessions is None else updated_sessions
        self.scoped = [] if scoped is None else scoped

    def sorted_scoped(self) -> list[tuple[str, str, str, Any]]:
        """(app, user, key, value) in key order, values as given (each adapter encodes them
        its own way). A fixed order keeps two writers of the same keys from deadlocking; the
        last write of a key within one group wins, as it would have one by one."""
        latest = {(a, u, k): v for a, u, k, v in self.scoped}
        return [(a, u, k, v) for (a, u, k), v in sorted(latest.items(), key=lambda item: item[0])]

    @classmethod
    def merge(cls, sides: list["SideRows"]) -> "SideRows":
        if len(sides) == 1:
            return sides[0]
        merged = cls()
        for side in sides:
            merged.claims += side.claims
            merged.new_sessions += side.new_sessions
            merged.updated_sessions += side.updated_sessions
            merged.scoped += side.scoped
        return merged
