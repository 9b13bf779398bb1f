"""Which parts of a log a rewind hides: the one implementation of that rule.

A rewind recorded at version ``v`` hides the versions ``start .. v-1`` (the target
invocation and everything after it). A rewind that is itself hidden by a later rewind
no longer hides anything — so rewinding a rewind brings its range back.

The same rule answers for a list of ADK events (``live_events``), with an event's index in
the list for its version: what ``Session.filter_events()`` and every Chronicle reader of a
session's events (the model's context, agent choice, resume, compaction, …) use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from domain.events import Event


def active_ranges(rewinds: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """The (first, last) version ranges hidden by the rewinds still in effect.

    ``rewinds`` holds ``(rewind_version, start_version)`` pairs in log order.
    """
    ranges: list[tuple[int, int]] = []
    for version, start in reversed(rewinds):
        if not any(first <= version <= last for first, last in ranges):
            ranges.append((start, version - 1))
    return ranges


def is_hidden(version: int, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(first <= version <= last for first, last in ranges)


def is_rewind(event: Event) -> bool:
    """Whether ``event`` is a rewind's marker (ADK's ``actions.rewind_before_invocation_id``)."""
    return bool(event.actions.rewind_before_invocation_id)


def live_events(events: Sequence[Event]) -> list[Event]:
    """The events no rewind in effect hides, without the rewind markers themselves (ADK's
    "live" events): google-adk's ``_apply_rewinds`` answer, by ``active_ranges``.

    A marker whose target invocation is not among the events before it rewinds to before the
    list's start: a store records a rewind only when its target precedes it, so its target lies
    in the part of the history a windowed read (``num_recent_events``) left out."""
    if not any(is_rewind(e) for e in events):
        return list(events)
    first_of: dict[str, int] = {}
    rewinds = []
    for i, event in enumerate(events):
        target = event.actions.rewind_before_invocation_id
        if target:
            rewinds.append((i, first_of.get(target, 0)))
        first_of.setdefault(event.invocation_id, i)
    hidden = active_ranges(rewinds)
    return [e for i, e in enumerate(events) if not is_rewind(e) and not is_hidden(i, hidden)]
