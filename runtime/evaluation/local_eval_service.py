"""Running an eval set: each case's turns through the agent (its sessions recorded in a store), then every
metric over the turns it took against the turns the case expects."""

from __future__ import annotations

import inspect
import logging
import uuid
from typing import Any, Optional

from domain.errors import InvalidArgumentError
from runtime.gc_pause import gc_frozen, gc_paused

from .app_details_recorder import AppDetailsRecorder
from .compare import run_session_id
from .eval_case import EvalCase, Invocation
from .eval_metrics import EvalMetric, EvalMetricResult, EvalMetricResultDetails, EvalMetricResultPerInvocation, EvalStatus
from .eval_result import EvalCaseResult
from .eval_set import EvalSet
from .evaluation_generator import run_conversation
from .evaluator import EvaluationResult, PerInvocationResult
from .metric_evaluator_registry import get_evaluator
from .simulation.user_simulator_provider import UserSimulatorProvider

logger = logging.getLogger(__name__)


async def evaluate_eval_set(
    loaded: Any, eval_set: EvalSet, eval_metrics: list[EvalMetric], *, num_runs: int = 1, store: Any = None,
    run_id: Optional[str] = None, on_case: Any = None, user_simulator_config: Any = None,
) -> list[EvalCaseResult]:
    """`loaded` is what an agent module exposes (an agent, an App or a workflow node). The sessions go into
    `store` (a fresh memory store when None), with ids `RUN_ID-RUN-CASE`, so a run can be read back. A case
    with a conversation scenario is played by the simulator `user_simulator_config` names (default: a
    model-backed one)."""
    from runtime.runner import runner_for
    from runtime.sessions import LogSessionService
    from runtime.stores import open_store

    if num_runs < 1:
        raise InvalidArgumentError(f"num_runs must be at least 1, got {num_runs}.")
    simulators = UserSimulatorProvider(user_simulator_config)
    evaluators = [(m, get_evaluator(m)) for m in eval_metrics]  # an unknown metric fails before any run
    # a judge that reads the agents' instructions and tools gets them from the model requests
    recorder = AppDetailsRecorder() if any(getattr(e, "needs_app_details", False) for _, e in evaluators) else None
    own_store = store is None
    store = open_store("memory://") if own_store else store
    run_id = run_id or f"eval-{uuid.uuid4().hex[:12]}"
    runners: dict[str, Any] = {}

    def runner_of(app_name: str) -> Any:
        if app_name not in runners:
            runners[app_name] = runner_for(loaded, app_name=app_name, session_service=sessions,
                                           plugins=[recorder] if recorder else [])
        return runners[app_name]

    results = []
    with gc_frozen():  # what exists before the run is none of its garbage (runtime.gc_pause)
        try:
            sessions = LogSessionService(store)
            for run in range(num_runs):
                for n, case in enumerate(eval_set.eval_cases):
                    # A case builds many small objects and few cycles: the collector waits for its end
                    # (runtime.gc_pause). Its passes were a fifth of a case's CPU time.
                    with gc_paused():
                        result = await _evaluate_case(runner_of, case, run_session_id(run_id, run, n),
                                                      eval_set.eval_set_id, evaluators, simulators, recorder)
                    results.append(result)
                    if on_case is not None:
                        on_case(result)
        finally:
            for runner in runners.values():
                await runner.close()
            if own_store:
                store.close()
    return results


async def _evaluate_case(runner_of: Any, case: EvalCase, sid: str, eval_set_id: str, evaluators: list,
                         simulators: UserSimulatorProvider, recorder: Optional[AppDetailsRecorder]) -> EvalCaseResult:
    """Plays one case through its app's Runner, then scores the turns it took."""
    app_name = case.session_input.app_name if case.session_input else "EvaluationGenerator"
    try:
        sid, actual = await run_conversation(runner_of(app_name), case, session_id=sid,
                                             simulator=simulators.provide(case))
        if recorder is not None:
            for turn in actual:
                turn.app_details = recorder.app_details(turn.invocation_id)
        return await score_case(eval_set_id, case, actual, evaluators, sid)
    except Exception as e:  # noqa: BLE001 - a case the agent cannot finish fails; the others still run
        return failed_case(eval_set_id, case, sid, e)


async def score_case(eval_set_id: str, case: EvalCase, actual: list[Invocation], evaluators: list, session_id: str
               ) -> EvalCaseResult:
    """Every metric over one case's turns; the case fails when any scored metric fails. A scenario case has
    no expected turns: a metric that needs them is NOT_EVALUATED there, as in google-adk."""
    expected = case.conversation
    if expected is not None and len(actual) != len(expected):
        raise InvalidArgumentError(f"Eval case {case.eval_id!r}: the agent took {len(actual)} turns for the "
                                   f"{len(expected)} the case has.")
    for n, turn in enumerate(actual):  # the case's rubrics, then the turn's, as google-adk adds them
        for rubric in [*(case.rubrics or []), *((expected[n].rubrics or []) if expected else [])]:
            if any(r.rubric_id == rubric.rubric_id for r in turn.rubrics or []):
                raise InvalidArgumentError(f"Rubric with rubric_id '{rubric.rubric_id}' already exists.")
            turn.rubrics = [*(turn.rubrics or []), rubric]
    per_turn = [EvalMetricResultPerInvocation(actual_invocation=a, expected_invocation=expected[n] if expected else None)
                for n, a in enumerate(actual)]
    overall = []
    for metric, evaluator in evaluators:
        try:
            found = evaluator.evaluate_invocations(actual, expected)
            if inspect.isawaitable(found):  # a judge-model metric calls its model
                found = await found
        except ValueError as e:
            if expected is not None:
                raise
            logger.warning("Metric %s cannot score scenario case %r: %s", metric.metric_name, case.eval_id, e)
            found = EvaluationResult()
        fields = metric.model_dump()
        overall.append(EvalMetricResult(
            score=found.overall_score, eval_status=found.overall_eval_status,
            details=EvalMetricResultDetails(rubric_scores=found.overall_rubric_scores,
                                            token_usage_details=found.overall_token_usage_details), **fields))
        each = found.per_invocation_results if len(found.per_invocation_results) == len(per_turn) else [
            PerInvocationResult(actual_invocation=t.actual_invocation) for t in per_turn]
        for turn, r in zip(per_turn, each):
            turn.eval_metric_results.append(EvalMetricResult(
                score=r.score, eval_status=r.eval_status,
                details=EvalMetricResultDetails(rubric_scores=r.rubric_scores,
                                                token_usage_details=r.token_usage_details), **fields))
    return EvalCaseResult(eval_set_file=eval_set_id, eval_set_id=eval_set_id, eval_id=case.eval_id,
                          final_eval_status=final_status(overall), overall_eval_metric_results=overall,
                          eval_metric_result_per_invocation=per_turn, session_id=session_id,
                          user_id=case.session_input.user_id if case.session_input else "test_user_id")


def failed_case(eval_set_id: str, case: EvalCase, session_id: str, error: BaseException) -> EvalCaseResult:
    """A case whose run raised, or took another number of turns: FAILED, with no scores and the reason."""
    return EvalCaseResult(eval_set_file=eval_set_id, eval_set_id=eval_set_id, eval_id=case.eval_id,
                          final_eval_status=EvalStatus.FAILED, overall_eval_metric_results=[],
                          eval_metric_result_per_invocation=[], session_id=session_id,
                          error=f"{type(error).__name__}: {error}",
                          user_id=case.session_input.user_id if case.session_input else "test_user_id")


def final_status(results: list[EvalMetricResult]) -> EvalStatus:
    """FAILED if any metric failed, PASSED if one passed and none failed, else NOT_EVALUATED."""
    statuses = {r.eval_status for r in results}
    if EvalStatus.FAILED in statuses:
        return EvalStatus.FAILED
    return EvalStatus.PASSED if EvalStatus.PASSED in statuses else EvalStatus.NOT_EVALUATED
