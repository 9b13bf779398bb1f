"""The fold of node-life facts (projections.workflow): what a resume, `chronicle workflow` and the
analytics read. Pure, incremental, and indifferent to events that are not node facts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.events import Event, EventActions, NodeInfo
from projections.workflow import NODE_FACT_KEY, WorkflowRuns, fold, fold_all, node_stats

STATUSES = ["started", "retried", "completed", "failed", "cancelled", "resumed", "waiting"]


def fact(invocation: str, path: str, status: str, t: float, **extra) -> Event:
    return Event(
        invocation_id=invocation, author=path.rsplit("/", 1)[-1].split("@")[0], timestamp=t,
        node_info=NodeInfo(path=path), output=extra.pop("output", None),
        actions=EventActions(route=extra.pop("route", None)),
        custom_metadata={NODE_FACT_KEY: {"status": status, **extra}},
    )


facts = st.lists(
    st.tuples(
        st.sampled_from(["e-1", "e-2"]),
        st.sampled_from(["wf/a@1", "wf/a@2", "wf/b@1", "wf/b@1/c@1"]),
        st.sampled_from(STATUSES),
        st.one_of(st.none(), st.integers(), st.text(max_size=5)),
    ),
    max_size=40,
)


def events_of(items) -> list[Event]:
    out = []
    for i, (inv, path, status, value) in enumerate(items):
        out.append(fact(inv, path, status, float(i), input=value, output=value if status == "completed" else None, attempt=1))
        if i % 3 == 0:
            out.append(Event(invocation_id=inv, author="user", timestamp=float(i)))  # not a fact
    return out


@settings(max_examples=150, deadline=None)
@given(facts, st.integers(min_value=0, max_value=80))
def test_folding_in_two_parts_equals_folding_at_once(items, cut):
    events = events_of(items)
    whole = fold_all(events)
    parts = fold_all(events[cut:], fold_all(events[:cut]))
    assert parts == whole
    # each run's status is the last fact recorded for its path, in its invocation
    for inv, nodes in whole.invocations.items():
        for path, run in nodes.items():
            last = [s for (i, p, s, _) in items if i == inv and p == path][-1]
            assert run.status == last
            assert run.finished == (last == "completed")


@settings(max_examples=100, deadline=None)
@given(facts)
def test_stats_count_every_run_failure_and_retry(items):
    runs = fold_all(events_of(items))
    stats = node_stats(runs)
    all_runs = [r for nodes in runs.invocations.values() for r in nodes.values()]
    assert sum(s.runs for s in stats.values()) == len(all_runs)
    assert sum(s.failures for s in stats.values()) == sum(r.status == "failed" for r in all_runs)
    assert sum(s.retries for s in stats.values()) == sum(r.retries for r in all_runs)


def test_a_run_keeps_its_input_output_route_error_and_time():
    runs = WorkflowRuns()
    for event in [
        fact("e-1", "wf/a@1", "started", 10.0, input={"q": 1}, attempt=1, sources=[]),
        fact("e-1", "wf/a@1", "retried", 10.5, error="ConnectionError: x", attempt=1),
        fact("e-1", "wf/a@1", "completed", 12.0, output=[1, 2], route="yes"),
    ]:
        fold(runs, event)
    run = runs.nodes["wf/a@1"]
    assert (run.input, run.output, run.route, run.retries, run.attempts) == ({"q": 1}, [1, 2], "yes", 1, 2)
    assert run.seconds == 2.0 and run.name == "a"
    stats = node_stats(runs)["a"]
    assert (stats.runs, stats.completed, stats.retries, stats.mean_seconds) == (1, 1, 1, 2.0)


def test_events_without_a_node_path_or_fact_are_ignored():
    stray = Event(author="x", custom_metadata={NODE_FACT_KEY: {"status": "completed"}})  # no node_info
    message = Event(author="talk", node_info=NodeInfo(path="wf/talk@1"))  # a node's message, not a fact
    assert fold_all([stray, message]).invocations == {}
