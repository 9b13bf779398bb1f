"""The timeline fold groups a session's events into invocations by id (projections/timeline.py)."""

from __future__ import annotations

from functools import reduce

from projections.log_event import recorded
from projections.timeline import Timeline, fold_timeline


def event(version: int, invocation_id: str, text: str) -> object:
    return recorded("app", "ann", "s1", version, {
        "id": f"e{version}", "invocation_id": invocation_id, "author": "user", "timestamp": float(version),
        "content": {"role": "user", "parts": [{"text": text}]},
    })


def test_an_invocation_that_comes_back_gathers_its_later_events():
    """A paused invocation resumed after another one ran (a confirmation answered later) is still one
    invocation, the first of its id."""
    events = [event(2, "a", "one"), event(3, "b", "two"), event(4, "a", "three"), event(5, "c", "five"),
              event(6, "b", "four")]
    timeline = reduce(fold_timeline, events, Timeline())
    assert [(inv.invocation_id, [s.text for s in inv.steps]) for inv in timeline.invocations] == [
        ("a", ["one", "three"]), ("b", ["two", "four"]), ("c", ["five"]),
    ]
    assert timeline.invocation("a") is timeline.invocations[0] and timeline.invocation("b") is timeline.invocations[1]
    assert timeline.invocation("nope") is None


def test_many_invocations_fold_one_after_another():
    events = [event(v, f"inv{v // 2}", f"t{v}") for v in range(2, 4002)]
    timeline = reduce(fold_timeline, events, Timeline())
    assert len(timeline.invocations) == 2000 and timeline.events == 4000
    assert [s.version for s in timeline.invocation("inv1000").steps] == [2000, 2001]
