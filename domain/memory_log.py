"""The memory log: one event-sourced aggregate per (app, user) saying what their memory holds.

* ``SessionAdded`` — a session of this store was added to memory. The index follows its log
  from then on, so the session stays searchable as it grows and its rewinds apply.
* ``Horizon`` — the session's version when it was (last) added: what google-adk's memory holds of
  it (a snapshot of the session as added), which its ranking searches (runtime.memory).
* ``Remembered`` — events of a session that lives in another store (a session object handed
  to `add_session_to_memory` whose log this store does not have), reduced to their text.

Adding the same session again records only what is new, so adding is idempotent. The log is
hash-chained like every log (``domain.chained``).
"""

from __future__ import annotations

import uuid
from typing import Any, Optional

from domain.chained import ChainedAggregate

_NAMESPACE = uuid.UUID("a2d1c0e7-5f0b-4f6e-8c3d-7e9b1a4c2f58")


def memory_log_id(app_name: str, user_id: str) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"{app_name}\x1f{user_id}")


class MemoryLog(ChainedAggregate):
    TOPIC = "chronicle:MemoryLog"

    class Created(ChainedAggregate.Created):
        TOPIC = "chronicle:MemoryLog.Created"
        app_name: str
        user_id: str

    class Chained(ChainedAggregate.Chained):
        TOPIC = "chronicle:MemoryLog.Chained"

    class SessionAdded(Chained):
        TOPIC = "chronicle:MemoryLog.SessionAdded"
        session_id: str
        log_id: str  # hex

        def apply(self, log: MemoryLog) -> None:
            log.members[self.log_id] = self.session_id

    class Horizon(Chained):
        TOPIC = "chronicle:MemoryLog.Horizon"
        log_id: str  # hex
        version: int

        def apply(self, log: MemoryLog) -> None:
            log.horizons[self.log_id] = self.version

    class Remembered(Chained):
        TOPIC = "chronicle:MemoryLog.Remembered"
        session_id: str
        first_position: int
        events: list[dict[str, Any]]  # id, invocation_id, author, timestamp, content (text parts)

        def apply(self, log: MemoryLog) -> None:
            seen = log.remembered.setdefault(self.session_id, {})
            for i, event in enumerate(self.events):
                seen[event["id"]] = self.first_position + i

    def __init__(self, app_name: str, user_id: str):
        self.app_name = app_name
        self.user_id = user_id
        self.members: dict[str, str] = {}  # session log id (hex) -> session id
        self.remembered: dict[str, dict[str, int]] = {}  # session id -> event id -> position
        self.horizons: dict[str, int] = {}  # session log id (hex) -> its version when last added

    @classmethod
    def start(cls, app_name: str, user_id: str) -> MemoryLog:
        return cls._start(cls.Created, memory_log_id(app_name, user_id), app_name=app_name, user_id=user_id)

    def add_session(self, session_id: str, log_id: uuid.UUID, version: Optional[int] = None) -> bool:
        changed = False
        if log_id.hex not in self.members:
            self._append(self.SessionAdded, session_id=session_id, log_id=log_id.hex)
            changed = True
        if version is not None and self.horizons.get(log_id.hex) != version:
            self._append(self.Horizon, log_id=log_id.hex, version=version)
            changed = True
        return changed

    def session_order(self) -> dict[str, int]:
        """Each remembered session's rank in the order it was first added (sessions of this
        store first, then copied ones: the log does not interleave the two kinds)."""
        order: dict[str, int] = {}
        for session_id in [*self.members.values(), *self.remembered]:
            order.setdefault(session_id, len(order))
        return order

    def remember(self, session_id: str, events: list[dict[str, Any]]) -> bool:
        seen = self.remembered.get(session_id, {})
        new = list({e["id"]: e for e in events if e["id"] not in seen}.values())
        if not new:
            return False
        self._append(self.Remembered, session_id=session_id, first_position=len(seen) + 1, events=new)
        return True


MEMORY_TOPICS = (
    MemoryLog.Created.TOPIC, MemoryLog.SessionAdded.TOPIC, MemoryLog.Horizon.TOPIC, MemoryLog.Remembered.TOPIC,
)
