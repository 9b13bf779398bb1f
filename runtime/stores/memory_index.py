"""What a memory-index backend provides (in-memory BM25, SQLite FTS5, PostgreSQL tsvector)."""

from __future__ import annotations

import abc
from typing import Sequence
from uuid import UUID

from projections.memory import Folded, MemoryDoc, SourceView, with_visibility


class LostRace(Exception):
    """Raised inside a commit's transaction to roll it back: another catch-up was first."""


class MemoryIndex(abc.ABC):
    """The read model of memory: documents plus, per source, the position folded so far.

    `commit` writes a source's new documents together with its new position, and only if the
    stored position is still `before` — so two catch-ups racing on one source index it once.
    """

    def __init__(self, recorder: object):
        self.recorder = recorder

    @abc.abstractmethod
    def sources(self, app_name: str, user_id: str) -> dict[str, SourceView]:
        """The sources followed for (app, user), with their folded positions."""

    def commit(self, app_name: str, user_id: str, source: str, before: int, view: SourceView, folded: Folded) -> bool:
        """Records `folded` and the source's new view atomically; False if another writer did."""
        try:
            self._commit(app_name, user_id, source, before, view, folded)
        except LostRace:
            return False
        return True

    def _commit(self, app_name: str, user_id: str, source: str, before: int, view: SourceView, folded: Folded) -> None:
        """`commit` in one transaction, raising LostRace inside it (to roll it back) when the stored
        position is no longer `before` (or override `commit`)."""
        raise NotImplementedError

    @abc.abstractmethod
    def search(self, app_name: str, user_id: str, query: str, limit: int) -> list[tuple[MemoryDoc, float]]:
        """The best `limit` visible documents of (app, user) for `query`, best first."""

    @abc.abstractmethod
    def documents(self, app_name: str, user_id: str) -> list[MemoryDoc]:
        """Every document of (app, user), hidden ones too, in (source, position) order."""

    @abc.abstractmethod
    def clear(self) -> None:
        """Drops every document and position (for a rebuild)."""

    def current_versions(self, log_ids: Sequence[UUID]) -> dict[str, int]:
        """The newest stored version of each log (hex id -> version); missing logs are left out."""
        versions = {}
        for log_id in log_ids:
            newest = self.recorder.select_events(log_id, desc=True, limit=1)  # type: ignore[attr-defined]
            if newest:
                versions[log_id.hex] = newest[0].originator_version
        return versions

    @staticmethod
    def prepared(folded: Folded, view: SourceView) -> list[MemoryDoc]:
        return with_visibility(folded.docs, view)
