"""Which parts of a log a rewind hides: the one implementation of that rule.

A rewind recorded at version ``v`` hides the versions ``start .. v-1`` (the target
invocation and everything after it). A rewind that is itself hidden by a later rewind
no longer hides anything — so rewinding a rewind brings its range back.
"""

from __future__ import annotations

from typing import Sequence


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
