"""An evalset and test configs made with google-adk 2.13 score the same on Chronicle.

google-adk records the weather agent's conversations and writes them as an evalset (with its own converter,
as `adk web` does), then scores a changed version of the agent on it; Chronicle scores the same changed agent
on the same files. Every case's status, and every metric's score per case and per turn, must be equal
(tool trajectory, ROUGE-1 response match, tool calls, model calls, tokens; not seconds, which vary)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess

import pytest

from tests.adk_env import ADK_PYTHON, adk_python_or_skip
from runtime.evaluation import AgentEvaluator, EvalConfig, LocalEvalSetResultsManager
from runtime.evaluation.local_eval_sets_manager import load_eval_set_from_file
from tests.eval_agents.scores import CONFIGS, scores_of
from tools.parity.check import REPO

AGENT = "tests.eval_agents.weather_eval"


def adk(command: str, folder, **env) -> str:
    done = subprocess.run(
        [ADK_PYTHON, "-W", "ignore", "-m", "tests.eval_agents.adk_side", command, str(folder)],
        capture_output=True, text=True, cwd=REPO, timeout=300,
        env={**os.environ, "PYTHONPATH": REPO, **env})
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def made_by_adk(tmp_path_factory):
    adk_python_or_skip()
    folder = tmp_path_factory.mktemp("adk_evalset")
    adk("make", folder)
    return folder


def chronicle_scores(folder) -> dict:
    eval_set = load_eval_set_from_file(str(folder / "weather.evalset.json"))
    found = {}
    for name in CONFIGS:
        config = EvalConfig.model_validate_json((folder / f"{name}.json").read_text())
        results = folder / "chronicle" / name
        shutil.rmtree(results, ignore_errors=True)  # one result file: this run's
        try:
            asyncio.run(AgentEvaluator.evaluate_eval_set(
                agent_module=AGENT, eval_set=eval_set, eval_config=config, num_runs=1, print_detailed_results=False,
                app_name="weather_eval", eval_set_results_manager=LocalEvalSetResultsManager(str(results))))
            found[name + ":passed"] = True
        except AssertionError:
            found[name + ":passed"] = False
        history = results / "weather_eval" / ".adk" / "eval_history"
        found[name] = scores_of(json.loads(next(history.iterdir()).read_text()))
    return found


def test_a_changed_agent_scores_the_same_on_chronicle_as_on_google_adk(made_by_adk, monkeypatch):
    theirs = json.loads(adk("score", made_by_adk, EVAL_AGENT_VARIANT="changed"))
    monkeypatch.setenv("EVAL_AGENT_VARIANT", "changed")
    ours = chronicle_scores(made_by_adk)
    assert ours == theirs
    # and the comparison has teeth: the change shows, in the turns it touched
    strict = ours["test_config"]
    # strict trajectory and wording fail; IN_ORDER with ignore_args tolerates the extra and changed calls
    assert theirs["test_config:passed"] is False and theirs["lenient_config:passed"] is True
    assert ours["lenient_config"]["tokyo"]["metrics"]["tool_trajectory_avg_score"]["turns"] == [1.0]
    assert strict["paris_then_rome"]["metrics"]["tool_trajectory_avg_score"]["turns"] == [1.0, 0.0]
    assert strict["paris_then_rome"]["metrics"]["response_match_score"]["turns"][0] < 0.5
    assert strict["tokyo"]["metrics"]["tool_call_count_v1"]["turns"] == [2.0]
    assert strict["bangkok_then_chat"]["metrics"]["response_match_score"]["turns"] == [1.0, 1.0]
    # metrics of the user's own are called as google-adk calls them: Paris's new answer is too long,
    # Tokyo's second call is not in the expected trajectory
    custom = ours["custom_config"]
    assert custom["paris_then_rome"]["metrics"]["short_answers"]["turns"] == [0.0, 1.0]
    assert custom["tokyo"]["metrics"]["same_calls"]["turns"] == [0.0]
    assert theirs["custom_config:passed"] is False


def test_the_unchanged_agent_passes_its_own_evalset_on_both(made_by_adk, monkeypatch):
    theirs = json.loads(adk("score", made_by_adk))
    monkeypatch.delenv("EVAL_AGENT_VARIANT", raising=False)
    ours = chronicle_scores(made_by_adk)
    assert ours == theirs
    assert ours["test_config:passed"] is True


PAIRS = [
    ["The weather in Paris is sunny today.", "Expect sunny skies over Paris; enjoy your walks."],
    ["Running runners ran quickly!", "the runner runs quick"],
    ["東京の天気は晴れです", "東京は雨です"],
    ["กรุงเทพ ฝนตก วันนี้", "กรุงเทพ แดดออก วันนี้"],
    ["Café au lait, s'il vous plaît", "cafe au lait"],
    ["Привет, мир", "привет всем"],
    ["", "something"],
    ["ＦＵＬＬ width 123", "full width 123"],
]


def test_response_match_is_rouge_1_exactly_as_google_adk_computes_it(made_by_adk):
    from runtime.evaluation.final_response_match_v1 import rouge_1

    done = subprocess.run([ADK_PYTHON, "-W", "ignore", "-m", "tests.eval_agents.adk_side", "rouge", "-"],
                          input=json.dumps(PAIRS), capture_output=True, text=True, cwd=REPO, timeout=300,
                          env={**os.environ, "PYTHONPATH": REPO})
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout)
    assert [rouge_1(c, r).fmeasure for c, r in PAIRS] == theirs
    assert len(set(theirs)) > 4  # the pairs score differently: the comparison is not of zeros


CALLS = {
    "a": {"name": "get_weather", "args": {"city": "Paris"}},
    "a2": {"name": "get_weather", "args": {"city": "Paris", "unit": "F"}},
    "b": {"name": "get_time", "args": {"zone": "CET"}},
    "c": {"name": "book", "args": {}},
}
TRAJECTORIES = [([], []), (["a"], []), ([], ["a"]), (["a", "b"], ["a", "b"]), (["b", "a"], ["a", "b"]),
                (["a", "c", "b"], ["a", "b"]), (["a2"], ["a"]), (["a", "a"], ["a"]), (["a"], ["a", "a"]),
                (["c", "b", "a2"], ["a", "b"])]


@pytest.mark.parametrize("criterion", [
    {"threshold": 1.0}, {"threshold": 1.0, "match_type": "IN_ORDER"}, {"threshold": 1.0, "match_type": "ANY_ORDER"},
    {"threshold": 0.5, "match_type": "any-order", "ignore_args": True}, {"threshold": 1.0, "ignore_args": True},
])
def test_tool_trajectory_scores_as_google_adk_for_every_match_type(made_by_adk, criterion):
    from runtime.evaluation.eval_case import IntermediateData, Invocation
    from runtime.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
    from runtime.evaluation.trajectory_evaluator import TrajectoryEvaluator

    pairs = [[[CALLS[k] for k in actual], [CALLS[k] for k in expected]] for actual, expected in TRAJECTORIES]
    done = subprocess.run([ADK_PYTHON, "-W", "ignore", "-m", "tests.eval_agents.adk_side", "trajectory", "-"],
                          input=json.dumps({"criterion": criterion, "pairs": pairs}), capture_output=True, text=True,
                          cwd=REPO, timeout=300, env={**os.environ, "PYTHONPATH": REPO})
    assert done.returncode == 0, done.stderr[-2000:]
    metric = EvalMetric(metric_name="tool_trajectory_avg_score",
                        criterion=ToolTrajectoryCriterion.model_validate(criterion))
    turn = lambda calls: Invocation(user_content={"parts": []},  # noqa: E731
                                    intermediate_data=IntermediateData(tool_uses=calls))
    ours = TrajectoryEvaluator(eval_metric=metric).evaluate_invocations(
        [turn(a) for a, _ in pairs], [turn(e) for _, e in pairs])
    theirs = json.loads(done.stdout)
    assert [r.score for r in ours.per_invocation_results] == theirs
    assert {0.0, 1.0} <= set(theirs)  # each match type both matches and refuses some of the pairs


def test_an_evalset_taken_from_the_log_loads_in_google_adk(made_by_adk, sqlite_url, tmp_path):
    from tests.cli_helpers import cli
    from tests.test_eval_from_log import record
    from runtime.stores import open_store

    store = open_store(sqlite_url)
    try:
        asyncio.run(record(store))
    finally:
        store.close()
    path = tmp_path / "weather.evalset.json"
    cli("eval", "create", "--app", "weather_eval", "--out", str(path), store=sqlite_url)
    done = subprocess.run([ADK_PYTHON, "-W", "ignore", "-m", "tests.eval_agents.adk_side", "load", str(path)],
                          capture_output=True, text=True, cwd=REPO, timeout=300, env={**os.environ, "PYTHONPATH": REPO})
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == {"bangkok_then_chat": 2, "paris_then_rome": 2, "tokyo": 1}


@pytest.mark.parametrize("path, why", [("tests.eval_agents.custom_metrics.nope", "has no attribute 'nope'"),
                                       ("no_such_module.metric", "No module named 'no_such_module'"),
                                       ("tests.eval_agents.scores.CONFIGS", "not refer to a callable"),
                                       ("metric", "Could not import")])
def test_a_custom_metric_that_cannot_be_found_is_refused_before_any_run(path, why, tmp_path):
    config = tmp_path / "test_config.json"
    config.write_text(json.dumps({"criteria": {"mine": 0.5}, "custom_metrics": {"mine": {"code_config": {"name": path}}}}))
    evalset = tmp_path / "one.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "one", "eval_cases": [{"eval_id": "hi", "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": "weather in Paris"}]}}]}]}))
    from tests.cli_helpers import ROOT, cli

    done = cli("eval", str(ROOT / "tests" / "eval_agents" / "weather_eval"), str(evalset), expect=1)
    assert why in done.stderr and done.stdout == ""  # refused before any case ran
