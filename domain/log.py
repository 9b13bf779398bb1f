"""The Session aggregate: one append-only log per conversation.

The aggregate is deliberately thin. It holds what its invariants and fast loads need
(the version, the session-scoped state folded so far, the invocation index), never
the event list; events are read from the store only when a caller asks for them.
"""

from __future__ import annotations

import uuid
from typing import Any

from eventsourcing.domain import Aggregate

from domain.state import apply_delta, split_scopes

_NAMESPACE = uuid.UUID("6f1f0c52-3b1e-4f43-9c1a-6c7a1e0b8d2a")


def session_log_id(app_name: str, user_id: str, session_id: str) -> uuid.UUID:
    """The log's id is derived, so any process finds a session without an index."""
    return uuid.uuid5(_NAMESPACE, f"{app_name}\x1f{user_id}\x1f{session_id}")


class SessionLog(Aggregate):
    TOPIC = "chronicle:SessionLog"

    class Snapshot(Aggregate.Snapshot):
        TOPIC = "chronicle:SessionLog.Snapshot"

    class Created(Aggregate.Created):
        """Genesis: carries the initial state, so a rewind can restore it."""

        TOPIC = "chronicle:SessionLog.Created"
        app_name: str
        user_id: str
        session_id: str
        state: dict[str, Any]
        created_time: float

    class Recorded(Aggregate.Event):
        """One non-partial ADK event, stored as its JSON dict (``temp:`` keys removed)."""

        TOPIC = "chronicle:SessionLog.Recorded"
        event: dict[str, Any]

        def apply(self, log: SessionLog) -> None:
            actions = self.event.get("actions") or {}
            apply_delta(log.state, split_scopes(actions.get("state_delta")).session)
            log.last_update_time = self.event["timestamp"]
            invocation_id = self.event.get("invocation_id")
            if invocation_id:
                first = log.invocations.get(invocation_id, (self.originator_version,))[0]
                # A new list, never mutated: readers may hold the previous one.
                log.invocations[invocation_id] = [first, self.originator_version]
            log.event_count += 1

    class Deleted(Aggregate.Event):
        TOPIC = "chronicle:SessionLog.Deleted"
        deleted_time: float

        def apply(self, log: SessionLog) -> None:
            log.deleted = True
            log.last_update_time = self.deleted_time

    def __init__(
        self, app_name: str, user_id: str, session_id: str, state: dict[str, Any], created_time: float
    ):
        self.app_name = app_name
        self.user_id = user_id
        self.session_id = session_id
        self.state: dict[str, Any] = dict(split_scopes(state).session)
        self.created_time = created_time
        self.last_update_time = created_time
        self.deleted = False
        # invocation id -> [first version, last version] of its recorded events
        self.invocations: dict[str, list[int]] = {}
        self.event_count = 0

    @classmethod
    def start(
        cls, app_name: str, user_id: str, session_id: str, state: dict[str, Any], created_time: float
    ) -> SessionLog:
        return cls._create(
            cls.Created,
            id=session_log_id(app_name, user_id, session_id),
            app_name=app_name,
            user_id=user_id,
            session_id=session_id,
            state=state,
            created_time=created_time,
        )

    def record(self, event: dict[str, Any]) -> None:
        self.trigger_event(self.Recorded, event=event)

    def delete(self, deleted_time: float) -> None:
        self.trigger_event(self.Deleted, deleted_time=deleted_time)


# Topics of the events that carry ADK events; projections read only these.
RECORDED_TOPICS = (SessionLog.Recorded.TOPIC,)
