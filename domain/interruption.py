"""Interrupted invocations: the one rule of which tool calls a turn left open.

A tool call that no result answers, and that is not long-running (which waits for its answer by
design, as a call paused for a person does), means the turn did not end the way it was going: its
process stopped (a SIGKILL, a crash) or it lost the session to another writer (a 409). The
timeline reads this from the log as it folds; the session service records it as a fact
(``SessionLog.Interrupted``) when a later invocation starts, which proves the first one's writer is
gone (any later write of its own would meet a StaleSessionError)."""

from __future__ import annotations

from typing import Any, Iterable, Sequence


def still_open(open_calls: Sequence[str], called: Iterable[str], answered: Iterable[str],
               waiting: Iterable[str]) -> list[str]:
    """The open calls after one event that made ``called``, answered ``answered`` and marked
    ``waiting`` as long-running."""
    answered, waiting = set(answered), set(waiting)
    left = [c for c in open_calls if c not in answered]
    return left + [c for c in called if c and c not in waiting and c not in answered]


def left_open(events: Sequence[Any], next_invocation_id: str | None) -> tuple[str, list[str]] | None:
    """(invocation id, its open calls) when an event of ``next_invocation_id`` follows ``events``
    (a session's ADK events) whose last invocation left calls open; None otherwise. Only the
    log's tail is read: the caller checks that ``next_invocation_id`` is new to the session."""
    last = events[-1].invocation_id if events else None
    if not last or not next_invocation_id or last == next_invocation_id:
        return None
    start = len(events)
    while start and events[start - 1].invocation_id == last:
        start -= 1
    open_calls: list[str] = []
    for event in events[start:]:
        calls = event.get_function_calls()
        if not calls and not open_calls:
            continue  # most events: nothing called, nothing open (checked on every append)
        open_calls = still_open(open_calls, (c.id for c in calls),
                                (r.id for r in event.get_function_responses() if r.id),
                                event.long_running_tool_ids or ())
    return (last, open_calls) if open_calls else None
