"""The ADK-compatible Session a service hands out: a view of the log, not the log."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from pydantic.alias_generators import to_camel

from domain.events import Event
from domain.log_only import split_log_only
from domain.rewind_ranges import is_rewind, live_events


class Session(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", arbitrary_types_allowed=True
    )

    id: str
    app_name: str
    user_id: str
    state: dict[str, Any] = Field(default_factory=dict)
    events: list[Event] = Field(default_factory=list)
    last_update_time: float = 0.0

    # The log version this object reflects; appends check it (optimistic concurrency).
    _version: Optional[int] = PrivateAttr(default=None)
    # (events list, how many were seen, the last one, the live ones): see `live_events`.
    _live: Optional[tuple] = PrivateAttr(default=None)
    # The log-only events (domain.log_only), each with how many of `events` precede it.
    _log_only: list = PrivateAttr(default_factory=list)

    @property
    def version(self) -> Optional[int]:
        # Read the private slot directly: pydantic's __getattr__ is slow for a hot path.
        private = self.__pydantic_private__
        return private.get("_version") if private else None

    def advance(self, version: int, last_update_time: float) -> None:
        """Move this view to a version the service just stored (its event already appended).
        Set directly: pydantic's ``__setattr__`` is a slow path, twice per append."""
        self.__dict__["last_update_time"] = last_update_time
        self.__pydantic_private__["_version"] = version  # type: ignore[index]

    def get_events(self) -> list[Event]:
        """All the session's events, rewound ones and rewind markers included (``events``)."""
        return self.events

    def filter_events(self, *, exclude_rewound: bool = True) -> list[Event]:
        """The session's events without those a rewind took back, and without the rewind
        markers (the names of google-adk's proposal, issue 4959 / PR 4960); with
        ``exclude_rewound=False``, ``events`` itself. A new list each call."""
        if not exclude_rewound:
            return self.events
        return list(self.live_events())

    def live_events(self) -> list[Event]:
        """``filter_events()`` for Chronicle's own readers: kept between calls and extended as
        events are appended, so a turn does not refilter the history. Do not modify it."""
        events = self.events
        private = self.__pydantic_private__
        kept = private.get("_live") if private else None
        if kept is not None and kept[0] is events:
            seen, last, live = kept[1], kept[2], kept[3]
            if seen == len(events) and (not seen or events[-1] is last):
                return live
            if seen < len(events) and (not seen or events[seen - 1] is last):
                new = events[seen:]
                # An event after the ones seen hides nothing before it unless it is a rewind.
                if not any(is_rewind(e) for e in new):
                    live = live + new
                    self._keep_live(events, live)
                    return live
        live = live_events(events)
        self._keep_live(events, live)
        return live

    def keep_log_only(self, event: Event) -> None:
        """Records a log-only event just stored after `events` (it is not one of them)."""
        self._private()["_log_only"] = [*self._private().get("_log_only", []), (len(self.events), event)]

    def log_events(self) -> list[Event]:
        """`live_events()` with the log-only events in their places: the whole log, as the
        workflow's resume reads it."""
        hidden = (self.__pydantic_private__ or {}).get("_log_only")
        live = self.live_events()
        if not hidden:
            return live
        events = self.events
        kept = {id(e) for e in live} if len(live) != len(events) else None
        merged: list[Event] = []
        at = 0
        for position, event in hidden:
            merged.extend(e for e in events[at:position] if kept is None or id(e) in kept)
            merged.append(event)
            at = max(at, position)
        merged.extend(e for e in events[at:] if kept is None or id(e) in kept)
        return merged

    def _private(self) -> dict:
        if self.__pydantic_private__ is None:
            object.__setattr__(self, "__pydantic_private__", {})
        return self.__pydantic_private__

    def copy_events_of(self, other: "Session") -> None:
        """This view's events become a list of their own holding ``other``'s, with what
        ``other.live_events()`` kept (so a cached session handed to a new run is not refiltered)."""
        events = list(other.events)
        self.__dict__["events"] = events
        self._private()["_log_only"] = list((other.__pydantic_private__ or {}).get("_log_only", []))
        kept = (other.__pydantic_private__ or {}).get("_live")
        if kept is not None and kept[0] is other.events and kept[1] == len(events):
            self._keep_live(events, kept[3])

    def _keep_live(self, events: list[Event], live: list[Event]) -> None:
        if self.__pydantic_private__ is None:
            object.__setattr__(self, "__pydantic_private__", {})
        self.__pydantic_private__["_live"] = (events, len(events), events[-1] if events else None, live)

    @classmethod
    def from_store(
        cls,
        *,
        id: str,
        app_name: str,
        user_id: str,
        state: dict[str, Any],
        events: list[Event],
        last_update_time: float,
        version: int,
    ) -> "Session":
        """Build a session from values the store already validated, skipping validation
        (listing 10,000 sessions would otherwise spend most of its time re-checking them)."""
        session = cls.__new__(cls)
        events, hidden = split_log_only(events)
        values = {
            "id": id,
            "app_name": app_name,
            "user_id": user_id,
            "state": state,
            "events": events,
            "last_update_time": last_update_time,
        }
        object.__setattr__(session, "__dict__", values)
        object.__setattr__(session, "__pydantic_fields_set__", set(values))
        object.__setattr__(session, "__pydantic_extra__", None)
        object.__setattr__(session, "__pydantic_private__", {"_version": version, "_live": None, "_log_only": hidden})
        return session
