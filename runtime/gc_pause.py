"""Pausing the cyclic garbage collector while a batch of objects is built.

Decoding thousands of stored events allocates many small objects and no cycles, so
the collector's passes find nothing, yet on a large heap they added about a third to
a full session load. The pause is counted, so threads decoding at once share it and
the collector comes back when the last one finishes (if it was on to begin with). If
overlapping pauses keep it off for over a second, the young objects are collected as
each pause ends, so a busy process cannot starve the collector.

When the collector comes back, what the pause built moves straight to the oldest generation
(``gc.freeze`` then ``gc.unfreeze``: two list splices) instead of being walked by the next young
collection: that walk took 4 ms after a 2,000-event load, an eighth of a cold load, to find
nothing. (Skipped when the program froze objects itself: those stay frozen.)

A long batch that keeps what it builds (an eval run) can also leave the objects that existed
before it out of the collector's passes for its length (gc_frozen).
"""

from __future__ import annotations

import gc
import threading
import time
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_pausers = 0
_was_enabled = False
_paused_since = 0.0
_LONGEST_PAUSE_S = 1.0


@contextmanager
def gc_paused() -> Iterator[None]:
    global _pausers, _was_enabled, _paused_since
    with _lock:
        if _pausers == 0:
            _was_enabled = gc.isenabled()
            _paused_since = time.monotonic()
            gc.disable()
        _pausers += 1
    try:
        yield
    finally:
        collect = False
        with _lock:
            _pausers -= 1
            if _pausers == 0 and _was_enabled:
                if not _freezers and not _program_froze():
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()
            elif _was_enabled and time.monotonic() - _paused_since > _LONGEST_PAUSE_S:
                _paused_since, collect = time.monotonic(), True
        if collect:
            gc.collect(0)


_freezers = 0
_froze = False  # whether gc_frozen's outermost block froze (not when the program had)
_program_freezes: bool | None = None


def _program_froze() -> bool:
    """Whether the program froze objects itself (gc.freeze before forking workers, say): those must
    stay frozen, so neither trick here runs. Asked once, under _lock: counting the frozen objects
    walks them all (an eval run's frozen heap made each count take milliseconds)."""
    global _program_freezes
    if _program_freezes is None:
        _program_freezes = gc.get_freeze_count() > 0
    return _program_freezes


@contextmanager
def gc_frozen() -> Iterator[None]:
    """Leaves the objects that exist now out of the collector's passes until the block ends
    (gc.freeze). A long batch that keeps what it builds (an eval run's sessions and results)
    triggers full passes, and each rescanned the whole heap (modules, the app) for nothing:
    in an eval of 100 cases, a tenth of its CPU time. Counted like gc_paused: the objects go
    back to the collector when the last block ends, and any garbage among them is collected then."""
    global _freezers, _froze
    with _lock:
        if _freezers == 0:
            _froze = not _program_froze()
            if _froze:
                gc.freeze()
        _freezers += 1
    try:
        yield
    finally:
        with _lock:
            _freezers -= 1
            if _freezers == 0 and _froze:
                gc.unfreeze()
