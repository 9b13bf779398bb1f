"""What a fold sees: one stored event of a session log, with the session it belongs to.

A session log holds three kinds of domain events (see ``domain.session_log``): its genesis
(``created``, carrying the initial state), one ``recorded`` event per non-partial ADK event
(carried as the event's stored JSON dict), and ``deleted``. Every fold in this package is a
pure function ``(view, LogEvent) -> view``; where the events come from (a store, a list in a
test, an ADK ``Session``) is not its business.

Folds read the ADK event as its JSON dict (``event.data``) rather than a parsed ``Event``:
rebuilding a projection folds tens of thousands of events a second, and parsing each into
pydantic models would cost more than the fold. The accessors below give typed access to the
parts folds use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Literal, Mapping
from uuid import UUID

from domain.session_ids import session_log_id
from domain.state import ScopedDelta, split_scopes

if TYPE_CHECKING:  # folds read JSON; importing the models (and google-genai) is left to callers
    from domain.events import Event
    from domain.session import Session

CREATED: Literal["created"] = "created"
RECORDED: Literal["recorded"] = "recorded"
# A rewind: ``data`` is its marker ADK event (``actions.rewind_before_invocation_id``), ``meta``
# holds ``start_version`` (the first version it hides) and the session's ``restored_state`` and
# ``restored_artifacts`` (the session as it was before the rewound invocation).
REWOUND: Literal["rewound"] = "rewound"
# The session is a fork: ``meta`` names the source (``source_session_id``, ``source_version``…).
FORKED: Literal["forked"] = "forked"
DELETED: Literal["deleted"] = "deleted"
# An earlier invocation left tool calls without a result, recorded when the next one started
# (``domain.interruption``): ``meta`` holds its ``invocation_id`` and ``open_calls``.
INTERRUPTED: Literal["interrupted"] = "interrupted"

Kind = Literal["created", "recorded", "rewound", "forked", "deleted", "interrupted"]

_EMPTY: Mapping[str, Any] = {}


@dataclass(slots=True)
class LogEvent:
    """One stored event of one session's log.

    ``position`` is the event's place in the whole store's log (its notification id; 0 when
    the event did not come from a store); ``version`` is its place in its session's log
    (1 is the genesis). ``data`` is the ADK event's stored JSON dict (``recorded``, and the
    marker event of ``rewound``; empty otherwise); ``meta`` holds the domain event's other
    fields (the initial ``state`` of ``created``, the restored session of ``rewound``, the
    source of ``forked``).

    ``copied`` marks the events a fork starts with: copies of its source's history, recorded
    again in the fork's log. They build the fork's own state and timeline, but they are not new
    activity: shared state (``app:``/``user:``), user artifacts and analytics skip them, as the
    session service does.
    """

    kind: Kind
    app_name: str
    user_id: str
    session_id: str
    version: int
    timestamp: float
    data: Mapping[str, Any] = field(default_factory=dict)
    position: int = 0
    log_id: UUID | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    copied: bool = False
    _scoped: ScopedDelta | None = field(default=None, repr=False, compare=False)
    _session_key: str | None = field(default=None, repr=False, compare=False)
    _user_key: str | None = field(default=None, repr=False, compare=False)

    # -- identity ----------------------------------------------------------------------

    @property
    def session_key(self) -> str:
        """``app/user/session``: the key of per-session views (ids never contain '/')."""
        key = self._session_key
        if key is None:
            key = self._session_key = f"{self.app_name}/{self.user_id}/{self.session_id}"
        return key

    @property
    def user_key(self) -> str:
        """``app/user``: the key of per-user views."""
        key = self._user_key
        if key is None:
            key = self._user_key = f"{self.app_name}/{self.user_id}"
        return key

    # -- the ADK event (recorded only) -------------------------------------------------

    @property
    def event_id(self) -> str:
        return self.data.get("id", "")

    @property
    def invocation_id(self) -> str:
        return self.data.get("invocation_id", "")

    @property
    def author(self) -> str:
        return self.data.get("author", "")

    @property
    def branch(self) -> str | None:
        return self.data.get("branch")

    @property
    def actions(self) -> Mapping[str, Any]:
        return self.data.get("actions") or _EMPTY

    @property
    def state_delta(self) -> Mapping[str, Any]:
        """The stored state delta (``temp:`` keys are never stored)."""
        if self.kind == CREATED:
            return self.meta.get("state") or _EMPTY
        return self.actions.get("state_delta") or _EMPTY

    @property
    def scoped_delta(self) -> ScopedDelta:
        """The state delta split by scope (``domain.state.split_scopes``), computed once per event."""
        scoped = self._scoped
        if scoped is None:
            scoped = self._scoped = split_scopes(self.state_delta)
        return scoped

    @property
    def artifact_delta(self) -> Mapping[str, int]:
        return self.actions.get("artifact_delta") or _EMPTY

    @property
    def role(self) -> str | None:
        content = self.data.get("content")
        return content.get("role") if content else None

    def parts(self) -> list[Mapping[str, Any]]:
        content = self.data.get("content")
        return (content.get("parts") or []) if content else []

    def text(self) -> str:
        return "".join(p["text"] for p in self.parts() if p.get("text") and not p.get("thought"))

    def function_calls(self) -> list[Mapping[str, Any]]:
        """``{"id", "name", "args"}`` dicts, in order."""
        return [p["function_call"] for p in self.parts() if p.get("function_call")]

    def function_responses(self) -> list[Mapping[str, Any]]:
        """``{"id", "name", "response"}`` dicts, in order."""
        return [p["function_response"] for p in self.parts() if p.get("function_response")]

    @property
    def usage(self) -> Mapping[str, Any]:
        return self.data.get("usage_metadata") or _EMPTY

    @property
    def error_code(self) -> str | None:
        return self.data.get("error_code")



def is_tool_error(response: Mapping[str, Any]) -> bool:
    """ADK's convention: a tool result with an ``error`` entry reports a failed call."""
    result = response.get("response")
    return (type(result) is dict or isinstance(result, Mapping)) and result.get("error") is not None


def session_events(session: Session, *, initial_state: Mapping[str, Any] | None = None) -> Iterator[LogEvent]:
    """The log events of an ADK ``Session`` object: genesis (with ``initial_state``) then its events.

    For folding sessions held in memory (tests, tools); stores give their events with positions.
    """
    log_id = session_log_id(session.app_name, session.user_id, session.id)
    start = session.events[0].timestamp if session.events else session.last_update_time
    yield LogEvent(
        CREATED, session.app_name, session.user_id, session.id, 1, start, {}, 0, log_id,
        {"state": dict(initial_state or {})},
    )
    for version, event in enumerate(session.events, start=2):
        yield recorded(session.app_name, session.user_id, session.id, version, event, log_id=log_id)


def recorded(
    app_name: str, user_id: str, session_id: str, version: int, event: Event | Mapping[str, Any],
    *, position: int = 0, log_id: UUID | None = None,
) -> LogEvent:
    """A ``recorded`` log event for an ADK event (or its stored JSON dict)."""
    data = event if isinstance(event, Mapping) else event.to_json_dict()
    return LogEvent(RECORDED, app_name, user_id, session_id, version, data["timestamp"], data, position, log_id)


def only(kinds: Iterable[Kind], events: Iterable[LogEvent]) -> Iterator[LogEvent]:
    wanted = frozenset(kinds)
    return (e for e in events if e.kind in wanted)
