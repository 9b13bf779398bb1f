"""A session's history as people read it: the timeline of invocations (``TimeTravel.history``)
with the rewinds recorded in it, and the turns they took back marked.

Which versions a rewind hides is the domain's rule, read from the session's log
(``SessionLog.hidden_ranges``). ``chronicle history``, ``chronicle export --format markdown`` and
the server's history and export routes all read a session through ``load_history``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from domain.rewind_ranges import is_hidden
from domain.session_log import SessionLog
from projections.timeline import Timeline
from runtime.log_reader import LogReader
from runtime.read_models import TimeTravel
from runtime.sessions.session_logs import parse_recorded
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

    def summary(self) -> dict[str, Any]:
        """What `chronicle history --json` prints and the server's history route answers."""
        row = self.row
        return {
            "app_name": row.app_name, "user_id": row.user_id, "session_id": row.session_id,
            "deleted": row.deleted, "forked_from": self.forked_from,
            "timeline": self.timeline, "rewinds": self.rewinds,
        }


def load_history(store: Store, row: CatalogRow, time_travel: Optional[TimeTravel] = None) -> History:
    """The session's timeline with its rewinds (blocking: call it off the event loop)."""
    timeline = (time_travel or TimeTravel(store)).history((row.app_name, row.user_id, row.session_id))
    log: SessionLog = store.application.repository.get(row.log_id)
    ranges = log.hidden_ranges()
    marks = []
    for version, start in log.rewinds:
        rows = LogReader(store).stored_events(row.log_id, gt=version - 1, lte=version)
        marker = parse_recorded(rows[0])
        marks.append(RewindMark(
            version, start, marker.id, marker.actions.rewind_before_invocation_id or "",
            sorted(marker.actions.state_delta), marker.timestamp, is_hidden(version, ranges),
        ))
    for inv in timeline.invocations:
        if is_hidden(inv.first_version, ranges) and not inv.rewound:
            by = next((m for m in marks if m.start_version <= inv.first_version < m.version and not m.undone), None)
            inv.rewound, inv.rewound_by = True, f"rewind at v{by.version}" if by else "a rewind"
    return History(row, timeline, marks, log.forked_from)
