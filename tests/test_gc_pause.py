"""The collector pause used while decoding batches: shared, restored, never starving."""

from __future__ import annotations

import gc
import threading
import weakref

from runtime import gc_pause
from runtime.gc_pause import gc_paused


class _Node:
    pass


def _garbage_cycle() -> weakref.ref:
    node = _Node()
    node.self = node  # only the cyclic collector can free it
    return weakref.ref(node)


def test_threads_share_the_pause_and_the_last_one_out_restores_the_collector():
    assert gc.isenabled()
    inside, release = threading.Barrier(3), threading.Event()

    def decode() -> None:
        with gc_paused():
            inside.wait()
            release.wait()

    threads = [threading.Thread(target=decode) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    assert not gc.isenabled()
    release.set()
    for t in threads:
        t.join()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_pauses_do_not_starve_the_collector(monkeypatch):
    monkeypatch.setattr(gc_pause, "_LONGEST_PAUSE_S", 0.0)
    with gc_paused():  # held throughout, as when a busy process's pauses overlap
        with gc_paused():
            cycle = _garbage_cycle()
        assert cycle() is None  # the young objects were collected as the inner pause ended
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_short_pause_leaves_collection_to_the_collector(monkeypatch):
    monkeypatch.setattr(gc_pause, "_LONGEST_PAUSE_S", 3600.0)
    with gc_paused():
        with gc_paused():
            cycle = _garbage_cycle()
        assert cycle() is not None
    gc.collect()
    assert cycle() is None


def test_frozen_objects_are_left_out_until_the_last_freeze_ends_then_collected():
    gc.disable()  # no automatic pass may collect the old garbage before the freeze
    try:
        cycle = _garbage_cycle()  # garbage already there when the freeze begins
        with gc_pause.gc_frozen():
            with gc_pause.gc_frozen():  # nested, as concurrent eval runs are
                assert gc.get_freeze_count() > 0
            assert gc.get_freeze_count() > 0  # the outer block still holds it
            gc.collect()
            assert cycle() is not None  # frozen: no pass looks at it
            young = _garbage_cycle()
            gc.collect()
            assert young() is None  # what the block makes is collected as usual
        assert gc.get_freeze_count() == 0
        gc.collect()
        assert cycle() is None  # given back, and collected
    finally:
        gc.enable()


def test_what_a_pause_built_joins_the_oldest_generation_unwalked():
    with gc_paused():
        built = [[i] for i in range(5_000)]
    young = {id(o) for o in gc.get_objects(generation=0)}
    assert not any(id(item) in young for item in built)
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert all(id(item) in oldest for item in built)


def test_objects_the_program_froze_stay_frozen(monkeypatch):
    monkeypatch.setattr(gc_pause, "_program_freezes", None)  # as in a program that froze before any pause
    kept = [[i] for i in range(100)]

    def still_frozen() -> bool:
        # A frozen object is in no generation. (Not the freeze count: any frozen object freed
        # meanwhile, by a thread an earlier test left, lowers it.)
        tracked = {id(o) for o in gc.get_objects()}
        return not any(id(item) in tracked for item in kept)

    gc.freeze()
    try:
        assert still_frozen()
        with gc_paused():
            _ = [[i] for i in range(1_000)]
        # (whether the collector is back is another test's: a thread an earlier test left may pause it)
        assert still_frozen()
        with gc_pause.gc_frozen():
            pass
        assert still_frozen()  # an eval run does not give them back either
    finally:
        gc.unfreeze()


def test_the_frozen_objects_are_counted_once_not_at_every_pause(monkeypatch):
    # Counting them walks them all: inside an eval run (everything frozen) a count per case took ms.
    counts = []
    real = gc.get_freeze_count
    monkeypatch.setattr(gc_pause, "_program_freezes", None)
    monkeypatch.setattr(gc, "get_freeze_count", lambda: counts.append(1) or real())
    with gc_pause.gc_frozen():
        for _ in range(50):
            with gc_paused():
                _ = [[i] for i in range(100)]
    for _ in range(50):
        with gc_paused():
            _ = [[i] for i in range(100)]
    assert len(counts) == 1
