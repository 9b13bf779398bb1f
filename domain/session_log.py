"""The Session aggregate: one append-only log per conversation.

The aggregate is deliberately thin. It holds what its invariants and fast loads need
(the version, the session-scoped state folded so far, the artifact view, the rewound
ranges), never the event list nor anything else that grows with every event: its
snapshots stay the size of the session's state. Where an invocation's events lie is
asked of the store (``Store.invocation_span``), which searches that session's own rows.
"""

from __future__ import annotations

from typing import Any, Mapping

from domain import chain as hash_chain
from domain.chained import ChainedAggregate
from domain.rewind_ranges import active_ranges, is_hidden
from domain.session_ids import session_log_id
from domain.state import apply_delta, is_user_scoped, session_scoped, split_scopes


class SessionLog(ChainedAggregate):
    TOPIC = "chronicle:SessionLog"

    class Snapshot(ChainedAggregate.Snapshot):
        TOPIC = "chronicle:SessionLog.Snapshot"
        PARTS = ("state", "artifacts", "chain_head")  # what rewinds and time travel read

        def mutate(self, aggregate: Any) -> Any:
            log = super().mutate(aggregate)
            for name in RETIRED:  # an older snapshot's: never carried on into the next one
                log.__dict__.pop(name, None)
            return log

    class Chained(ChainedAggregate.Chained):
        """Base of the log's events after its genesis (each carries its digest and link)."""

        TOPIC = "chronicle:SessionLog.Chained"

    class Created(ChainedAggregate.Created):
        """Genesis: carries the initial state, so a rewind can restore it."""

        TOPIC = "chronicle:SessionLog.Created"
        app_name: str
        user_id: str
        session_id: str
        state: dict[str, Any]
        created_time: float

    class ForkedFrom(Chained):
        """This session began as a copy of another's history up to ``version``."""

        TOPIC = "chronicle:SessionLog.ForkedFrom"
        source_session_id: str
        source_log_id: str
        source_version: int
        before_invocation_id: str | None
        forked_time: float

        def apply(self, log: SessionLog) -> None:
            log.last_update_time = self.forked_time
            log.forked_from = {
                "session_id": self.source_session_id,
                "log_id": self.source_log_id,
                "version": self.source_version,
                "before_invocation_id": self.before_invocation_id,
            }

    class Recorded(Chained):
        """One non-partial ADK event, stored as its JSON dict (``temp:`` keys removed)."""

        TOPIC = "chronicle:SessionLog.Recorded"
        event: dict[str, Any]

        def apply(self, log: SessionLog) -> None:
            actions = self.event.get("actions") or {}
            apply_delta(log.state, session_scoped(actions.get("state_delta")))
            fold_artifact_view(log.artifacts, actions.get("artifact_delta"))
            log.note_event(self.event, self.originator_version)

    class Rewound(Chained):
        """A rewind: the marker ADK event, and the session as it was before the target.

        The restored state and artifact versions are computed by replay when the rewind
        is recorded, so reading the session afterwards never replays anything.
        """

        TOPIC = "chronicle:SessionLog.Rewound"
        event: dict[str, Any]
        start_version: int
        restored_state: dict[str, Any]
        restored_artifacts: dict[str, int]

        def apply(self, log: SessionLog) -> None:
            log.state = dict(self.restored_state)
            fold_artifact_view(log.artifacts, restored=self.restored_artifacts)
            log.rewinds = [*log.rewinds, [self.originator_version, self.start_version]]
            log.note_event(self.event, self.originator_version)

    class Interrupted(Chained):
        """An earlier invocation left tool calls without a result (``domain.interruption``), noted
        when the next one starts: its writer is gone. A fact of Chronicle's own, never an ADK event."""

        TOPIC = "chronicle:SessionLog.Interrupted"
        invocation_id: str
        open_calls: list[str]
        noted_time: float

        def apply(self, log: SessionLog) -> None:
            pass  # read by the timeline and analytics; the session's state and events are unchanged

    class Deleted(Chained):
        TOPIC = "chronicle:SessionLog.Deleted"
        deleted_time: float

        def apply(self, log: SessionLog) -> None:
            log.deleted = True
            log.last_update_time = self.deleted_time

    def __init__(
        self,
        app_name: str,
        user_id: str,
        session_id: str,
        state: dict[str, Any],
        created_time: float,
    ):
        self.app_name = app_name
        self.user_id = user_id
        self.session_id = session_id
        self.state: dict[str, Any] = dict(split_scopes(state).session)
        self.created_time = created_time
        self.last_update_time = created_time
        self.deleted = False
        self.artifacts: dict[str, int] = {}  # session-scoped filename -> version in view
        self.rewinds: list[list[int]] = []  # [rewind version, first rewound version]
        self.forked_from: dict[str, Any] | None = None
        self.event_count = 0

    def note_event(self, event: dict[str, Any], version: int) -> None:
        self.last_update_time = event["timestamp"]
        self.event_count += 1

    def hidden_ranges(self) -> list[tuple[int, int]]:
        return active_ranges(self.rewinds)

    def visible_start(self, span: tuple[int, int] | None) -> int | None:
        """The first version of an invocation whose events span ``span`` (``Store.invocation_span``),
        if it is still in the timeline; else None."""
        if span is None or is_hidden(span[0], self.hidden_ranges()):
            return None
        return span[0]

    @classmethod
    def start(
        cls, app_name: str, user_id: str, session_id: str, state: dict[str, Any], created_time: float
    ) -> SessionLog:
        return cls._start(
            cls.Created, session_log_id(app_name, user_id, session_id),
            app_name=app_name, user_id=user_id, session_id=session_id, state=state, created_time=created_time,
        )

    def record(self, event: dict[str, Any]) -> None:
        self._append(self.Recorded, event=event)

    @classmethod
    def recorded_digest(cls, event: dict[str, Any]) -> str:
        """The digest ``record(event)`` gives the event it records (a live trace span names the
        logged event by it without reading the log back)."""
        return hash_chain.digest(cls.Recorded.TOPIC, {"event": event})

    def rewind(
        self, event: dict[str, Any], start_version: int, state: dict[str, Any], artifacts: dict[str, int]
    ) -> None:
        self._append(
            self.Rewound, event=event, start_version=start_version, restored_state=state, restored_artifacts=artifacts
        )

    def fork_of(
        self, source: SessionLog, version: int, before_invocation_id: str | None, forked_time: float
    ) -> None:
        self._append(
            self.ForkedFrom,
            source_session_id=source.session_id,
            source_log_id=str(source.id),
            source_version=version,
            before_invocation_id=before_invocation_id,
            forked_time=forked_time,
        )

    def note_interrupted(self, invocation_id: str, open_calls: list[str], noted_time: float) -> None:
        self._append(self.Interrupted, invocation_id=invocation_id, open_calls=open_calls, noted_time=noted_time)

    def delete(self, deleted_time: float) -> None:
        self._append(self.Deleted, deleted_time=deleted_time)


def session_artifacts(artifact_delta: Mapping[str, int] | None) -> dict[str, int]:
    """The part of an artifact delta that belongs to the session (``user:`` files are shared)."""
    return {name: v for name, v in (artifact_delta or {}).items() if not is_user_scoped(name)}


def fold_artifact_view(
    view: dict[str, int], artifact_delta: Mapping[str, int] | None = None, *, restored: Mapping[str, int] | None = None
) -> dict[str, int]:
    """The session's artifact view (filename -> version) after one event, updated in place: a
    rewind's ``restored`` view replaces it; any other event's session files take their new
    versions. The one fold of that view, wherever it is kept."""
    if restored is not None:
        view.clear()
        view.update(restored)
    elif artifact_delta:
        view.update(session_artifacts(artifact_delta))
    return view


# Attributes older versions of the aggregate kept and its snapshots may still hold: dropped on
# load (the snapshot's digest covers them as stored), and left out when verify compares.
RETIRED = ("invocations",)  # the invocation index: it grew with every invocation

# Topics of the events that carry ADK events (a rewind's marker is one); projections read these.
RECORDED_TOPICS = (SessionLog.Recorded.TOPIC, SessionLog.Rewound.TOPIC)
