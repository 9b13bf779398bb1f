"""A session's history as people read it: the timeline of invocations (``TimeTravel.history``)
with the rewinds recorded in it, and the turns they took back marked.

Which versions a rewind hides is the domain's rule, read from the session's log
(``SessionLog.hidden_ranges``). ``chronicle history``, ``chronicle export --format markdown`` and
the server's history and export routes all read a session through ``load_history``: the whole
log, or a window of it (``window``) read and folded in the window's cost — the server's history
route answers a page, and ``chronicle history`` prints page after page (``history_pages``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from domain.rewind_ranges import is_hidden
from domain.session_log import SessionLog
from projections.timeline import Timeline
from runtime.read_models import TimeTravel
from runtime.stores import CatalogRow, Store


@dataclass
class RewindMark:
    """A rewind recorded in the session: where, which invocation it went back before."""

    version: int
    start_version: int
    event_id: str
    before_invocation: str
    restored_keys: list[str]
    timestamp: float
    undone: bool = False  # itself rewound by a later rewind


@dataclass
class History:
    row: CatalogRow
    timeline: Timeline
    rewinds: list[RewindMark] = field(default_factory=list)
    forked_from: dict[str, Any] | None = None
    window: Window | None = None  # None: the whole log

    def summary(self) -> dict[str, Any]:
        """What `chronicle history --json` prints and the server's history route answers."""
        row = self.row
        return {
            "app_name": row.app_name, "user_id": row.user_id, "session_id": row.session_id,
            "deleted": row.deleted, "forked_from": self.forked_from,
            "timeline": self.timeline, "rewinds": self.rewinds,
            "window": self.window or Window(1, row.version, row.version, None, None),
        }


@dataclass
class Window:
    """Which versions of the log a history holds, and where the pages beside it start."""

    first: int
    last: int
    version: int  # the log's last version
    earlier: int | None  # the previous page: ``before=earlier`` (None: this one starts the log)
    later: int | None  # the next page: ``after=later`` (None: this one ends the log)


def window(row: CatalogRow, limit: int, *, before: int | None = None, after: int | None = None) -> Window:
    """The versions of a page of at most ``limit`` events: the ones after ``after``, or else the
    last ones before ``before`` (the log's newest when neither is given)."""
    if after is not None:
        first, last = after + 1, min(after + limit, row.version)
    else:
        last = min(row.version, before - 1) if before is not None else row.version
        first = max(1, last - limit + 1)
    first = max(first, 1)
    return Window(first, last, row.version, first if first > 1 else None, last if last < row.version else None)


def load_history(store: Store, row: CatalogRow, time_travel: Optional[TimeTravel] = None,
                 *, within: Window | None = None) -> History:
    """The session's timeline with its rewinds, or (``within``) the part of it a window of its log
    holds: read, folded and marked in the window's cost (blocking: call it off the event loop)."""
    span = {} if within is None else {"first": within.first, "last": within.last}
    time_travel = time_travel or TimeTravel(store)
    timeline = time_travel.history((row.app_name, row.user_id, row.session_id), **span)
    if within is not None and within.first > 1:  # the genesis is not in the window
        timeline.app_name, timeline.user_id, timeline.session_id = row.app_name, row.user_id, row.session_id
        timeline.created = row.created_time
    log: SessionLog = store.application.repository.get(row.log_id)
    ranges = log.hidden_ranges()
    marks = []
    for version, start in log.rewinds:
        if within is not None and not within.first <= version <= within.last:
            continue
        marker = time_travel.source.event_at(row.log_id, version)  # its ADK event as stored JSON: no model
        assert marker is not None  # the log's own rewinds are in its log
        marks.append(RewindMark(
            version, start, marker.event_id, marker.actions.get("rewind_before_invocation_id") or "",
            sorted(marker.state_delta), marker.timestamp, is_hidden(version, ranges),
        ))
    by_start = {start: version for version, start in log.rewinds}
    for inv in timeline.invocations:  # the whole log's rewinds decide, not the window's alone
        if not is_hidden(inv.first_version, ranges):
            inv.rewound, inv.rewound_by = False, None
        elif not inv.rewound:
            by = next((by_start[first] for first, last in ranges if first <= inv.first_version <= last), None)
            inv.rewound, inv.rewound_by = True, f"rewind at v{by}" if by else "a rewind"
    return History(row, timeline, marks, log.forked_from, within)


def history_pages(store: Store, row: CatalogRow, size: int = 1000) -> Iterator[History]:
    """The session's history from its start, a page of about ``size`` events at a time, each page
    ending where an invocation ends (unless one invocation alone is longer than a page)."""
    time_travel = TimeTravel(store)
    first = 1
    while first <= row.version:
        page = window(row, size, after=first - 1)
        history = load_history(store, row, time_travel, within=page)
        invocations = history.timeline.invocations
        if page.later is not None and len(invocations) > 1:  # the last one may go on: the next page has it
            next_first = invocations.pop().first_version
            for inv in invocations:  # an earlier invocation resumed after it: those steps come next
                inv.steps = [s for s in inv.steps if s.version < next_first]
            history.rewinds = [m for m in history.rewinds if m.version < next_first]
            history.timeline.deleted = None
        else:
            next_first = page.last + 1
        yield history
        first = next_first
