"""Pausing the cyclic garbage collector while a batch of objects is built.

Decoding thousands of stored events allocates many small objects and no cycles, so
the collector's passes find nothing, yet on a large heap they added about a third to
a full session load. The pause is counted, so threads decoding at once share it and
the collector comes back when the last one finishes (if it was on to begin with).
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_pausers = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    global _pausers, _was_enabled
    with _lock:
        if _pausers == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pausers += 1
    try:
        yield
    finally:
        with _lock:
            _pausers -= 1
            if _pausers == 0 and _was_enabled:
                gc.enable()
