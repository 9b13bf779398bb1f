"""Eval sets from the log: recorded conversations become cases, and a changed agent is flagged on exactly
the turns whose tool calls or answer changed, on every store; and `chronicle eval` / `eval create` as a
user runs them."""

from __future__ import annotations

import asyncio
import json

import pytest
from google.genai import types

from domain.errors import InvalidArgumentError
from runtime.evaluation.eval_config import DEFAULT_EVAL_CONFIG, get_eval_metrics_from_config
from runtime.evaluation.from_log import eval_set_from_sessions, source_of
from runtime.evaluation.local_eval_service import evaluate_eval_set
from runtime.evaluation.local_eval_sets_manager import load_eval_set_from_file
from runtime.evaluation.report import case_report, calls_of
from runtime.runner import Runner
from runtime.sessions import LogSessionService
from runtime.stores import open_store
from tests.cli_helpers import ROOT, cli
from tests.eval_agents.scores import CONVERSATIONS
from tests.eval_agents.weather_eval.agent import root_agent

AGENT_DIR = str(ROOT / "tests" / "eval_agents" / "weather_eval")
# What EVAL_AGENT_VARIANT=changed changes: Paris's answer, Rome's call arguments, Tokyo's calls.
CHANGED = {("paris_then_rome", 1): ["answer"], ("paris_then_rome", 2): ["trajectory"], ("tokyo", 1): ["trajectory"]}


async def record(store) -> None:
    runner = Runner(agent=root_agent, app_name="weather_eval", session_service=LogSessionService(store))
    for session_id, turns in CONVERSATIONS.items():
        await runner.session_service.create_session(app_name="weather_eval", user_id="ann", session_id=session_id,
                                                    state={"user:name": "Ann"})
        for text in turns:
            async for _ in runner.run_async(user_id="ann", session_id=session_id,
                                            new_message=types.Content(role="user", parts=[types.Part(text=text)])):
                pass
    await runner.close()


def flagged(results) -> dict:
    return {(r["eval_id"], t["turn"]): t["changed"] for r in map(case_report, results) for t in r["turns"]
            if t["below_threshold"]}


def test_recorded_sessions_become_cases_and_a_changed_agent_is_flagged_on_exactly_the_changed_turns(
        store_url, monkeypatch):
    store = open_store(store_url)
    try:
        asyncio.run(record(store))
        rows = store.recorder.select_catalog("weather_eval", None)
        eval_set = eval_set_from_sessions(store, rows, "weather")
        cases = {c.eval_id: c for c in eval_set.eval_cases}
        assert sorted(cases) == sorted(CONVERSATIONS)
        paris = cases["paris_then_rome"]
        assert [t.user_content.parts[0].text for t in paris.conversation] == CONVERSATIONS["paris_then_rome"]
        assert [calls_of(t) for t in paris.conversation] == [
            [{"name": "get_weather", "args": {"city": "Paris"}}], [{"name": "get_weather", "args": {"city": "Rome"}}]]
        assert paris.conversation[0].final_response.parts[0].text == "The weather in Paris is sunny today."
        assert paris.session_input.state == {"user:name": "Ann"}
        # each case points back to what happened: the session, its chain head, each turn's events
        source = source_of(paris)
        session = asyncio.run(LogSessionService(store).get_session(
            app_name="weather_eval", user_id="ann", session_id="paris_then_rome"))
        log = store.application.repository.get(next(r.log_id for r in rows if r.session_id == "paris_then_rome"))
        assert (source["session_id"], source["version"], source["chain_head"]) == (
            "paris_then_rome", log.version, log.chain_head)
        assert [e for t in source["turns"] for e in t["event_ids"]] == [e.id for e in session.events]
        assert [t["invocation_id"] for t in source["turns"]] == [t.invocation_id for t in paris.conversation]

        metrics = get_eval_metrics_from_config(DEFAULT_EVAL_CONFIG)
        same = asyncio.run(evaluate_eval_set(root_agent, eval_set, metrics, store=store, run_id="same"))
        assert flagged(same) == {} and {r.final_eval_status.name for r in same} == {"PASSED"}
        monkeypatch.setenv("EVAL_AGENT_VARIANT", "changed")
        changed = asyncio.run(evaluate_eval_set(root_agent, eval_set, metrics, store=store, run_id="changed"))
        assert flagged(changed) == CHANGED
        # the runs are sessions of the store too, named by the run
        ids = {r.session_id for r in store.recorder.select_catalog("weather_eval", "ann")}
        assert {"same-0-0", "changed-0-0", "changed-0-2"} <= ids
    finally:
        store.close()


def test_eval_create_then_eval_from_the_command_line(sqlite_url, tmp_path):
    store = open_store(sqlite_url)
    try:
        asyncio.run(record(store))
    finally:
        store.close()
    evalset = str(tmp_path / "weather.evalset.json")
    made = json.loads(cli("eval", "create", "--app", "weather_eval", "--out", evalset, "--json", store=sqlite_url).stdout)
    assert (made["cases"], made["turns"]) == (3, 5)
    since = json.loads(cli("eval", "create", "--app", "weather_eval", "--since", "2000-01-01", "--out",
                           str(tmp_path / "since.evalset.json"), "--json", store=sqlite_url).stdout)
    assert since["cases"] == 3
    future = cli("eval", "create", "--app", "weather_eval", "--since", "2999-01-01", "--out",
                 str(tmp_path / "none.evalset.json"), store=sqlite_url, expect=1)
    assert "created since 2999-01-01" in future.stderr and not (tmp_path / "none.evalset.json").exists()
    assert "not an ISO date" in cli("eval", "create", "--app", "weather_eval", "--since", "yesterday",
                                    store=sqlite_url, expect=2).stderr
    assert sorted(c.eval_id for c in load_eval_set_from_file(evalset).eval_cases) == sorted(CONVERSATIONS)

    passed = cli("eval", AGENT_DIR, evalset)
    assert "Tests passed: 3\n  Tests failed: 0" in passed.stdout

    junit = tmp_path / "eval.xml"
    failed = cli("eval", AGENT_DIR, evalset, "--json", "--junit", str(junit), expect=1,
                 env={"EVAL_AGENT_VARIANT": "changed"})
    report = json.loads(failed.stdout)
    assert (report["passed"], report["failed"]) == (1, 2)
    assert {(c["eval_id"], t["turn"]): t["changed"] for c in report["cases"] for t in c["turns"]
            if t["below_threshold"]} == CHANGED
    assert junit.read_text().count("<failure ") == 2

    one = cli("eval", AGENT_DIR, f"{evalset}:tokyo", "--json", expect=1, env={"EVAL_AGENT_VARIANT": "changed"})
    assert [c["eval_id"] for c in json.loads(one.stdout)["cases"]] == ["tokyo"]


def test_bad_input_gets_one_line_and_nothing_written(sqlite_url, tmp_path):
    open_store(sqlite_url).close()
    out = tmp_path / "x.evalset.json"
    missing = cli("eval", "create", "--from", "nope", "--out", str(out), store=sqlite_url, expect=1)
    assert "nope" in missing.stderr and not out.exists()
    cli("eval", "create", store=sqlite_url, expect=2)
    broken = tmp_path / "broken.evalset.json"
    broken.write_text(json.dumps({"eval_set_id": "b", "eval_cases": [{"eval_id": "x"}]}))
    bad = cli("eval", AGENT_DIR, str(broken), expect=1)
    assert "is not an eval set" in bad.stderr and "Traceback" not in bad.stderr
    config = tmp_path / "judge.json"
    config.write_text(json.dumps({"criteria": {"safety_v1": 0.5}}))
    good = tmp_path / "good.evalset.json"
    good.write_text(json.dumps({"eval_set_id": "g", "eval_cases": [{"eval_id": "x", "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": "weather in Paris"}]}}]}]}))
    judge = cli("eval", AGENT_DIR, str(good), "--config", str(config), expect=1)
    assert "safety_v1" in judge.stderr and "not computed by Chronicle" in judge.stderr
    # a judge that cannot be called fails the case with the reason, not a silent NOT_EVALUATED
    config.write_text(json.dumps({"criteria": {"final_response_match_v2": {
        "threshold": 0.5, "judge_model_options": {"judge_model": "no-such-judge", "num_samples": 1}}}}))
    nobody = cli("eval", AGENT_DIR, str(good), "--config", str(config), expect=1)
    assert "no-such-judge" in nobody.stdout + nobody.stderr and "Traceback" not in nobody.stderr


def test_a_case_the_agent_cannot_finish_fails_with_its_reason_and_the_others_still_run(tmp_path):
    evalset = tmp_path / "mixed.evalset.json"
    turn = lambda text: {"user_content": {"role": "user", "parts": [{"text": text}]}}  # noqa: E731
    evalset.write_text(json.dumps({"eval_set_id": "mixed", "eval_cases": [
        {"eval_id": "atlantis", "conversation": [turn("weather in Atlantis")]},
        {"eval_id": "chat", "conversation": [turn("hello there")]}]}))
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0}}))
    report = json.loads(cli("eval", AGENT_DIR, str(evalset), "--json", expect=1).stdout)
    atlantis, chat = report["cases"]
    assert atlantis["status"] == "FAILED" and "Atlantis has no weather service" in atlantis["error"]
    assert chat["status"] == "PASSED" and chat["metrics"]["tool_trajectory_avg_score"]["score"] == 1.0


def test_two_recorded_runs_compared_turn_by_turn(sqlite_url, tmp_path):
    store = open_store(sqlite_url)
    try:
        asyncio.run(record(store))
    finally:
        store.close()
    evalset = str(tmp_path / "weather.evalset.json")
    cli("eval", "create", "--app", "weather_eval", "--out", evalset, store=sqlite_url)
    before = json.loads(cli("eval", AGENT_DIR, evalset, "--json", store=sqlite_url).stdout)
    after = json.loads(cli("eval", AGENT_DIR, evalset, "--json", store=sqlite_url, expect=1,
                           env={"EVAL_AGENT_VARIANT": "changed"}).stdout)
    assert before["recorded"] and after["recorded"]
    same = json.loads(cli("eval", "compare", before["run_id"], before["run_id"], "--json", store=sqlite_url).stdout)
    assert not same["differs"] and len(same["cases"]) == 3
    found = json.loads(cli("eval", "compare", before["run_id"], after["run_id"], "--json", store=sqlite_url,
                           expect=1).stdout)
    # cases are paired by their place in the eval set; name them as the eval set does
    names = {f"0-{n}": c["eval_id"] for n, c in enumerate(before["cases"])}
    changed = {(names[c["case"]], t["turn"]): [w for w in t["changed"] if w != "tokens"]
               for c in found["cases"] for t in c["turns"] if t["changed"]}
    assert {k: v for k, v in changed.items() if v} == CHANGED
    rome = next(t for c in found["cases"] if names[c["case"]] == "paris_then_rome" for t in c["turns"] if t["turn"] == 2)
    assert rome["b"]["calls"] == [{"name": "get_weather", "args": {"city": "Rome", "unit": "F"}}]
    text = cli("eval", "compare", before["run_id"], after["run_id"], store=sqlite_url, expect=1).stdout
    assert "get_weather(city='Rome') -> get_weather(city='Rome', unit='F')" in text
    cli("eval", "compare", "eval-nope", after["run_id"], store=sqlite_url, expect=1)
    # `chronicle sessions` lists a run's sessions, and only them
    listed = json.loads(cli("sessions", "--eval-run", after["run_id"], "--json", store=sqlite_url).stdout)
    assert sorted(s["session_id"] for s in listed) == [f"{after['run_id']}-0-{n}" for n in range(3)]
    assert "no sessions match in eval run 'eval-nope'" in cli("sessions", "--eval-run", "eval-nope", store=sqlite_url).stderr


def test_a_rewound_turn_is_not_taken(sqlite_url):
    async def converse(store):
        runner = Runner(agent=root_agent, app_name="weather_eval", session_service=LogSessionService(store))
        await runner.session_service.create_session(app_name="weather_eval", user_id="ann", session_id="s")
        invocations = []
        for text in ["weather in Paris", "weather in Rome", "weather in Tokyo"]:
            async for event in runner.run_async(user_id="ann", session_id="s", new_message=types.Content(
                    role="user", parts=[types.Part(text=text)])):
                invocations.append(event.invocation_id)
        await runner.rewind_async(user_id="ann", session_id="s", rewind_before_invocation_id=invocations[-1])
        await runner.close()

    store = open_store(sqlite_url)
    try:
        asyncio.run(converse(store))
        case = eval_set_from_sessions(store, store.recorder.select_catalog("weather_eval", None), "w").eval_cases[0]
    finally:
        store.close()
    assert [t.user_content.parts[0].text for t in case.conversation] == ["weather in Paris", "weather in Rome"]
    assert len(source_of(case)["turns"]) == 2


async def record_gold_chat(store) -> None:
    """A session with state of its own and no tool call (the agent asks which city)."""
    runner = Runner(agent=root_agent, app_name="weather_eval", session_service=LogSessionService(store))
    await runner.session_service.create_session(app_name="weather_eval", user_id="bob", session_id="gold_chat",
                                                state={"plan": "gold", "visits": 3})
    async for _ in runner.run_async(user_id="bob", session_id="gold_chat",
                                    new_message=types.Content(role="user", parts=[types.Part(text="hello there")])):
        pass
    await runner.close()


def test_eval_create_where_takes_only_the_sessions_that_meet_every_condition(store_url):
    from runtime.evaluation.where import parse_where

    store = open_store(store_url)
    try:
        asyncio.run(record(store))
        asyncio.run(record_gold_chat(store))
        rows = store.recorder.select_catalog("weather_eval", None)

        def taken(*where):
            made = eval_set_from_sessions(store, rows, "w", [parse_where(w) for w in where])
            return sorted(c.eval_id for c in made.eval_cases)

        assert taken() == sorted([*CONVERSATIONS, "gold_chat"])
        assert taken("tool=get_weather") == sorted(CONVERSATIONS)
        assert taken("state.plan=gold") == taken("state.visits=3") == ["gold_chat"]
        with pytest.raises(InvalidArgumentError, match="meets the --where conditions"):
            taken("state.plan=gold", "tool=get_weather")  # none meets both: an error, not an empty set
    finally:
        store.close()


def test_eval_create_where_from_the_command_line(sqlite_url, tmp_path):
    store = open_store(sqlite_url)
    try:
        asyncio.run(record(store))
        asyncio.run(record_gold_chat(store))
    finally:
        store.close()
    out = tmp_path / "tools.evalset.json"
    made = json.loads(cli("eval", "create", "--app", "weather_eval", "--where", "tool=get_weather", "--out", str(out),
                          "--json", store=sqlite_url).stdout)
    assert made["cases"] == len(CONVERSATIONS)
    assert "gold_chat" not in {c.eval_id for c in load_eval_set_from_file(str(out)).eval_cases}
    none = tmp_path / "none.evalset.json"
    nobody = cli("eval", "create", "--app", "weather_eval", "--where", "state.plan=silver", "--out", str(none),
                 store=sqlite_url, expect=1)
    assert "meets the --where conditions" in nobody.stderr and not none.exists()
    bad = cli("eval", "create", "--app", "weather_eval", "--where", "colour=blue", store=sqlite_url, expect=2)
    assert "the key is `tool` or `state.KEY`" in bad.stderr and "Traceback" not in bad.stderr
