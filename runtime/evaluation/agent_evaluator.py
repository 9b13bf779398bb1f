"""`AgentEvaluator`: run an eval set against an agent module in a test, and fail with every metric below its
threshold, as google-adk 2.13's does."""

from __future__ import annotations

import importlib
import os
import statistics
from typing import Any, Optional

from .eval_config import EvalConfig, get_eval_metrics_from_config, get_evaluation_criteria_or_default
from .eval_metrics import BaseCriterion, EvalStatus, metric_threshold
from .eval_result import EvalCaseResult
from .eval_set import EvalSet
from .local_eval_service import evaluate_eval_set
from .local_eval_sets_manager import load_eval_set_from_file

NUM_RUNS = 2


class AgentEvaluator:
    @staticmethod
    def find_config_for_test_file(test_file: str) -> EvalConfig:
        """`test_config.json` beside the test file, else the default criteria."""
        return get_evaluation_criteria_or_default(os.path.join(os.path.dirname(test_file), "test_config.json"))

    @staticmethod
    async def evaluate_eval_set(
        agent_module: str, eval_set: EvalSet, criteria: Optional[dict[str, float]] = None,
        eval_config: Optional[EvalConfig] = None, num_runs: int = NUM_RUNS, agent_name: Optional[str] = None,
        print_detailed_results: bool = True, app_name: Optional[str] = None,
        eval_set_results_manager: Any = None, store: Any = None,
    ) -> None:
        """Runs the set `num_runs` times; raises AssertionError listing every metric whose mean score over a
        case's turns (all runs) is below its threshold. `store` records the runs (default: in memory)."""
        if eval_set_results_manager is not None and not app_name:
            raise ValueError("app_name is required when eval_set_results_manager is provided.")
        if not eval_set or not eval_set.eval_cases:
            raise ValueError("No eval cases were evaluated, so there is nothing to report a pass or a failure for.")
        if criteria:
            eval_config = EvalConfig(criteria={k: BaseCriterion(threshold=v) for k, v in criteria.items()})
        if eval_config is None:
            raise ValueError("`eval_config` is required.")
        loaded = load_agent_module(agent_module, agent_name)
        results = await evaluate_eval_set(loaded, eval_set, get_eval_metrics_from_config(eval_config),
                                          num_runs=num_runs, store=store,
                                          user_simulator_config=eval_config.user_simulator_config)
        if eval_set_results_manager is not None:
            eval_set_results_manager.save_eval_set_result(app_name, eval_set.eval_set_id, results)
        failures = metric_failures(results, agent_module)
        if print_detailed_results:
            for line in failures:
                print(line)
        assert not failures, "Following are all the test failures.\n" + "\n".join(failures)

    @staticmethod
    async def evaluate(
        agent_module: str, eval_dataset_file_path_or_dir: str, num_runs: int = NUM_RUNS,
        agent_name: Optional[str] = None, print_detailed_results: bool = True, app_name: Optional[str] = None,
        eval_set_results_manager: Any = None, store: Any = None,
    ) -> None:
        """Evaluates every `*.test.json` under a folder (or the one file given), each with the
        `test_config.json` beside it."""
        path = eval_dataset_file_path_or_dir
        files = [os.path.join(root, f) for root, _, names in os.walk(path) for f in sorted(names)
                 if f.endswith(".test.json")] if os.path.isdir(path) else [path]
        if not files:
            raise ValueError(f"No `*.test.json` eval files found in {path}, so there is nothing to evaluate.")
        for test_file in files:
            await AgentEvaluator.evaluate_eval_set(
                agent_module=agent_module, eval_set=load_eval_set_from_file(test_file),
                eval_config=AgentEvaluator.find_config_for_test_file(test_file), num_runs=num_runs,
                agent_name=agent_name, print_detailed_results=print_detailed_results, app_name=app_name,
                eval_set_results_manager=eval_set_results_manager, store=store)


def load_agent_module(module_name: str, agent_name: Optional[str] = None) -> Any:
    """The module's `agent.app` (an App) or `agent.root_agent`, or the sub-agent named `agent_name`."""
    module = importlib.import_module(module_name)
    if not (hasattr(module, "agent") or module_name.endswith(".agent")):
        raise ValueError(f"Module {module_name} does not have a member named `agent` or the name should "
                         "endwith `.agent`.")
    holder = getattr(module, "agent", module)
    root = getattr(holder, "root_agent", None)
    if root is None:
        raise ValueError(f"Module {module_name} does not have a root_agent.")
    if agent_name:
        found = root.find_agent(agent_name)
        if found is None:
            raise ValueError(f"Sub-Agent {agent_name!r} not found.")
        return found
    from runtime.app import App

    app = getattr(holder, "app", None)
    return app if isinstance(app, App) else root


def metric_failures(results: list[EvalCaseResult], agent_module: str) -> list[str]:
    """A line for each case and metric whose mean per-turn score (over all runs) is below its threshold."""
    failures = []
    by_case: dict[str, list[EvalCaseResult]] = {}
    for r in results:
        by_case.setdefault(r.eval_id, []).append(r)
    for eval_id, case_results in by_case.items():
        errors = [r.error for r in case_results if r.error]
        if errors:
            failures.append(f"{eval_id} for {agent_module} Failed. {len(errors)} of {len(case_results)} runs "
                            f"failed without scores: {errors[0]}")
        per_metric: dict[str, list] = {}
        for r in case_results:
            for turn in r.eval_metric_result_per_invocation:
                for m in turn.eval_metric_results:
                    per_metric.setdefault(m.metric_name, []).append(m)
        for name, turns in per_metric.items():
            if turns[0].eval_status == EvalStatus.INFORMATIONAL or (
                    turns[0].criterion is None and turns[0].threshold is None):
                continue
            threshold = metric_threshold(turns[0])
            scores = [t.score for t in turns if t.score is not None]
            if not scores:
                failures.append(f"{name} for {agent_module} was not evaluated. No score was produced, so the "
                                f"threshold of {threshold} was never checked and this is not a score regression.")
            elif statistics.mean(scores) < threshold:
                failures.append(f"{name} for {agent_module} Failed. Expected {threshold}, but got "
                                f"{statistics.mean(scores)}.")
    return failures
