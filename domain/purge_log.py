"""The store's operator audit log: one ``Purged`` event per purge, hash-chained like a session log.

A purge destroys data on purpose, so what it destroyed, why and who ran it is kept in a log of
its own that outlives it (``runtime.operations.purge`` writes it; ``verify`` checks its chain).
"""

from __future__ import annotations

import uuid
from typing import Any

from domain.chained import ChainedAggregate

PURGE_LOG_ID = uuid.UUID("5d1b7f0e-2c4a-4e8b-9a61-0c7e3f2b8d41")


class PurgeLog(ChainedAggregate):
    """The store's operator audit log: one ``Purged`` event per purge, hash-chained."""

    TOPIC = "chronicle:PurgeLog"

    class Created(ChainedAggregate.Created):
        TOPIC = "chronicle:PurgeLog.Created"
        created_time: float

    class Chained(ChainedAggregate.Chained):
        TOPIC = "chronicle:PurgeLog.Chained"

    class Purged(Chained):
        """What one purge destroyed, why, and who ran it."""

        TOPIC = "chronicle:PurgeLog.Purged"
        by: str
        reason: str
        scope: dict[str, Any]  # {"app_name", "user_id", "session_id"}: what was asked for
        sessions: list[dict[str, Any]]  # app_name, user_id, session_id, log_id, last_version, chain_head
        counts: dict[str, int]
        purged_time: float

        def apply(self, log: PurgeLog) -> None:
            log.purges += 1

    def __init__(self, created_time: float):
        self.purges = 0

    @classmethod
    def start(cls, created_time: float) -> PurgeLog:
        return cls._start(cls.Created, PURGE_LOG_ID, created_time=created_time)

    def record(self, **payload: Any) -> None:
        self._append(self.Purged, **payload)

