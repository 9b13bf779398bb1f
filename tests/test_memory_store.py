"""The in-memory store reads a window of a log as the library's recorder does, without
walking the log from its start."""

from __future__ import annotations

import uuid

from eventsourcing.persistence import StoredEvent
from eventsourcing.popo import POPOApplicationRecorder
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.stores.memory import MemoryLogRecorder

bounds = st.none() | st.integers(min_value=-2, max_value=25)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=20), bounds, bounds, st.booleans(), st.none() | st.integers(1, 25))
def test_windows_match_the_library_recorder(length, gt, lte, desc, limit):
    ours, theirs = MemoryLogRecorder(), POPOApplicationRecorder()
    log, other = uuid.uuid4(), uuid.uuid4()
    for version in range(1, length + 1):
        for recorder in (ours, theirs):
            recorder.insert_events([StoredEvent(log, version, "t", b"%d" % version)])
            recorder.insert_events([StoredEvent(other, version, "t", b"other")])
    window = dict(gt=gt, lte=lte, desc=desc, limit=limit)
    assert ours.select_events(log, **window) == theirs.select_events(log, **window)
    assert ours.select_events(uuid.uuid4(), **window) == []
