"""The in-memory store: a window of a log read as the library's recorder reads it, without
walking the log from its start; a refused batch leaves nothing written."""

from __future__ import annotations

import uuid

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.popo import POPOApplicationRecorder
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.stores.base import SideRows
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


def test_a_refused_batch_writes_nothing():
    recorder = MemoryLogRecorder()
    log = uuid.uuid4()
    recorder.insert_events([StoredEvent(log, 1, "t", b"1")], side=SideRows(claims=[(log, "a", 1)]))
    batches = [
        ([StoredEvent(log, 2, "t", b"2"), StoredEvent(log, 1, "t", b"again")], SideRows()),  # version 1 is taken
        ([StoredEvent(log, 2, "t", b"2"), StoredEvent(log, 2, "t", b"twice")], SideRows()),  # twice in one batch
        ([StoredEvent(log, 2, "t", b"2")], SideRows(claims=[(log, "a", 2)])),  # event id "a" is taken
    ]
    for events, side in batches:
        with pytest.raises(IntegrityError):
            recorder.insert_events(events, side=side)
    assert [e.state for e in recorder.select_events(log)] == [b"1"]
    assert recorder.max_notification_id() == 1 and recorder.find_claim(log, "a") == 1
    recorder.insert_events([StoredEvent(log, 2, "t", b"2")], side=SideRows(claims=[(log, "b", 2)]))
    assert [e.state for e in recorder.select_events(log)] == [b"1", b"2"] and recorder.find_claim(log, "b") == 2
