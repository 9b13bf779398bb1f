"""Events the log keeps for Chronicle's own readers but ADK's clients never see.

A workflow records facts ADK has no event for (a node that ended with nothing to say, a nested
workflow's end, an answer taken as a node's output): a resume must not run such a node again, so
the fact is in the log; but what `Runner.run_async` yields and what `Session.events` holds are
google-adk's events only. Such an event says so under `LOG_ONLY_KEY` of its `custom_metadata`;
the Session keeps it apart (`Session.log_events`), the Runner commits it and yields nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from domain.events import Event

LOG_ONLY_KEY = "chronicle_log_only"


def is_log_only(event: Event) -> bool:
    metadata = event.custom_metadata
    return bool(metadata) and metadata.get(LOG_ONLY_KEY) is True


def split_log_only(events: Iterable[Event]) -> tuple[list[Event], list[tuple[int, Event]]]:
    """(the events ADK's clients see, the log-only ones each with how many visible ones precede it)."""
    visible: list[Event] = []
    hidden: list[tuple[int, Event]] = []
    for event in events:
        if event.custom_metadata and is_log_only(event):
            hidden.append((len(visible), event))
        else:
            visible.append(event)
    return visible, hidden
