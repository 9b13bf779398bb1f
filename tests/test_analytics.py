"""Analytics per app on every store: counts, tokens, per agent / tool / user / day, latencies,
rewinds and forks; queryable from Python and printable as a table."""

from __future__ import annotations

import contextlib
import time

import pytest

from projections import ANALYTICS, AnalyticsView, fold_events, format_analytics
from projections.analytics import Latency
from runtime.read_models import Projector
from tests.test_projections_support import event, reference, stored

DAY = 86_400.0
T0 = 1_800_000_000.0 - 1_800_000_000.0 % DAY  # midnight UTC


async def shop(service):
    """Two users, two days: planner answers via a search tool (one call fails) and a checkout tool."""
    ann = await service.create_session(app_name="shop", user_id="ann")
    bob = await service.create_session(app_name="shop", user_id="bob")
    await service.append_event(ann, event("user", "a1", text="find tea", timestamp=T0 + 10))
    await service.append_event(ann, event("planner", "a1", call=("c1", "search", {"q": "tea"}), usage=(100, 10), timestamp=T0 + 10.5))
    await service.append_event(ann, event("planner", "a1", result=("c1", "search", {"hits": 3}), timestamp=T0 + 10.8))
    await service.append_event(ann, event("planner", "a1", text="3 teas", usage=(150, 20), timestamp=T0 + 11.5))
    await service.append_event(ann, event("user", "a2", text="buy", timestamp=T0 + 60))
    await service.append_event(ann, event("planner", "a2", call=("c2", "checkout", {}), usage=(200, 5), timestamp=T0 + 62))
    await service.append_event(ann, event("planner", "a2", result=("c2", "checkout", {"error": "card declined"}), timestamp=T0 + 62.05))
    await service.append_event(bob, event("user", "b1", text="hi", timestamp=T0 + DAY + 5))
    await service.append_event(bob, event("helper", "b1", error="RESOURCE_EXHAUSTED", timestamp=T0 + DAY + 6))
    await service.append_event(bob, event("helper", "b1", call=("c3", "search", {"q": "x"}), usage=(50, 5), timestamp=T0 + DAY + 9))
    await service.append_event(bob, event("helper", "b1", result=("c3", "search", {"hits": 0}), timestamp=T0 + DAY + 9.3))
    return ann, bob


async def test_analytics_counts_what_people_ask_for(service):
    await shop(service)
    projector = Projector(service.store)
    projector.catch_up()
    view = projector.analytics("shop")
    t = view.totals
    assert (t.sessions, t.invocations, t.events) == (2, 3, 11)
    assert (t.llm_calls, t.llm_errors, t.tool_calls, t.tool_errors) == (5, 1, 3, 1)
    assert (t.prompt_tokens, t.candidate_tokens, t.total_tokens) == (500, 40, 540)

    planner, helper = view.agents["planner"], view.agents["helper"]
    assert (planner.events, planner.llm_calls, planner.tool_calls, planner.tool_errors, planner.total_tokens) == (5, 3, 2, 1, 485)
    assert (helper.llm_calls, helper.llm_errors, helper.total_tokens) == (2, 1, 55)
    # model latency: time since the invocation's previous event
    assert planner.llm_latency.count == 3
    assert planner.llm_latency.total_ms == pytest.approx(500 + 700 + 2000)
    assert planner.llm_latency.max_ms == pytest.approx(2000)

    search, checkout = view.tools["search"], view.tools["checkout"]
    assert (search.calls, search.errors, checkout.calls, checkout.errors) == (2, 0, 1, 1)
    assert search.latency.count == 2 and search.latency.total_ms == pytest.approx(300 + 300)
    assert checkout.latency.max_ms == pytest.approx(50)

    assert (view.users["ann"].invocations, view.users["ann"].tool_errors, view.users["bob"].llm_calls) == (2, 1, 2)
    day1, day2 = (time.strftime("%Y-%m-%d", time.gmtime(T0 + d)) for d in (0, DAY))
    assert (view.days[day1].events, view.days[day2].events, view.days[day2].invocations) == (7, 4, 1)
    today = time.strftime("%Y-%m-%d", time.gmtime())
    assert view.days[today].sessions == 2  # the sessions were created now
    assert view.invocation_latency.count == 1  # a1 completed when a2 started
    assert view.invocation_latency.total_ms == pytest.approx(1500)


async def test_analytics_table_and_rebuild(service):
    await shop(service)
    projector = Projector(service.store)
    projector.catch_up()
    table = projector.analytics_table("shop")
    for expected in ("analytics of app 'shop'", "per agent", "planner", "per tool", "checkout", "per user", "ann", "per day"):
        assert expected in table
    before = stored(projector.runner("analytics"))
    assert projector.rebuild("analytics") == 11 + 2
    assert stored(projector.runner("analytics")) == before == reference(service.store, ANALYTICS)


async def test_forks_do_not_count_twice_and_rewinds_are_counted_apart(service):
    ann, _ = await shop(service)
    await service.fork_session(app_name="shop", user_id="ann", session_id=ann.id)
    await service.rewind_session(app_name="shop", user_id="ann", session_id=ann.id, rewind_before_invocation_id="a2")
    projector = Projector(service.store)
    projector.catch_up()
    view = projector.analytics("shop")
    assert (view.totals.sessions, view.totals.events, view.totals.llm_calls) == (3, 11, 5)
    assert (view.forks, view.rewinds) == (1, 1)
    assert "1 rewinds, 1 forks" in format_analytics("shop", view)


def test_latency_statistics():
    latency = Latency()
    for ms in (1, 2, 3, 40, 2000):
        latency.add(ms)
    assert latency.count == 5 and latency.mean_ms == pytest.approx(409.2) and latency.max_ms == 2000
    assert latency.quantile_ms(0.5) == 5 and latency.quantile_ms(0.95) == 2000
    assert Latency.from_json(latency.to_json()) == latency
    assert Latency().quantile_ms(0.5) is None


def test_an_empty_view_round_trips():
    view = AnalyticsView()
    assert AnalyticsView.from_json(view.to_json()) == view
    assert fold_events(ANALYTICS, []) == {}


async def test_workflow_nodes_count_runs_failures_retries_and_latency(service):
    from google.genai import types

    from runtime import App, Runner
    from runtime.workflow import START, RetryConfig, Workflow, node

    tries: list[int] = []

    @node(retry_config=RetryConfig(max_attempts=2, initial_delay=0, jitter=0))
    async def fetch(node_input: str):  # the message's text (a Content otherwise, as ADK)
        tries.append(1)
        if len(tries) == 1:
            raise ConnectionError("flaky")
        return node_input

    def check(node_input):
        if node_input == "bad":
            raise ValueError("bad input")
        return "ok"

    runner = Runner(app=App(name="flow", root_agent=Workflow(name="wf", edges=[(START, fetch, check)])),
                    session_service=service)
    for session_id, text in (("s1", "good"), ("s2", "bad")):
        await service.create_session(app_name="flow", user_id="u", session_id=session_id)
        message = types.Content(role="user", parts=[types.Part(text=text)])
        with pytest.raises(ValueError) if text == "bad" else contextlib.nullcontext():
            [e async for e in runner.run_async(user_id="u", session_id=session_id, new_message=message)]
    projector = Projector(service.store)
    projector.catch_up()
    nodes = projector.analytics("flow").nodes
    fetch_stats, check_stats = nodes["wf/fetch"], nodes["wf/check"]
    assert (fetch_stats.runs, fetch_stats.completed, fetch_stats.failures, fetch_stats.retries) == (2, 2, 0, 1)
    assert (check_stats.runs, check_stats.completed, check_stats.failures, check_stats.retries) == (2, 1, 1, 0)
    assert fetch_stats.latency.count == 2 and check_stats.latency.count == 1
    assert "per workflow node" in projector.analytics_table("flow")
    before = stored(projector.runner("analytics"))
    projector.rebuild("analytics")
    assert stored(projector.runner("analytics")) == before == reference(service.store, ANALYTICS)

