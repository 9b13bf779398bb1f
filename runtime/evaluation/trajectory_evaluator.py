"""`tool_trajectory_avg_score`: 1.0 for a turn whose tool calls match the expected ones, else 0.0."""

from __future__ import annotations

from typing import Optional

from google.genai import types as genai_types
from pydantic import ValidationError

from .eval_case import Invocation, get_all_tool_calls
from .eval_metrics import EvalMetric, ToolTrajectoryCriterion, metric_threshold
from .evaluator import EvaluationResult, Evaluator, score_each

MatchType = ToolTrajectoryCriterion.MatchType


class TrajectoryEvaluator(Evaluator):
    def __init__(self, threshold: Optional[float] = None, eval_metric: Optional[EvalMetric] = None):
        if threshold is not None and eval_metric:
            raise ValueError("Either eval_metric should be specified or threshold should be specified.")
        self._match_type, self._ignore_args = MatchType.EXACT, False
        if eval_metric and eval_metric.criterion:
            try:
                criterion = ToolTrajectoryCriterion.model_validate(eval_metric.criterion.model_dump())
            except ValidationError as e:
                raise ValueError(f"`{eval_metric.metric_name}` metric expects a criterion of type "
                                 f"`{ToolTrajectoryCriterion}`.") from e
            self._threshold, self._match_type, self._ignore_args = (
                criterion.threshold, criterion.match_type, criterion.ignore_args)
        elif eval_metric:
            self._threshold = metric_threshold(eval_metric)
        elif threshold is None:
            raise ValueError("A trajectory evaluation threshold is required.")
        else:
            self._threshold = threshold

    def evaluate_invocations(self, actual_invocations, expected_invocations=None, conversation_scenario=None
                             ) -> EvaluationResult:
        return score_each(actual_invocations, expected_invocations, self._threshold, self._score)

    def _score(self, actual: Invocation, expected: Invocation) -> float:
        calls = get_all_tool_calls(actual.intermediate_data)
        wanted = get_all_tool_calls(expected.intermediate_data)
        match = {MatchType.EXACT: self._exact, MatchType.IN_ORDER: self._in_order,
                 MatchType.ANY_ORDER: self._any_order}[self._match_type]
        return 1.0 if match(calls, wanted) else 0.0

    def _same(self, a: genai_types.FunctionCall, b: genai_types.FunctionCall) -> bool:
        return a.name == b.name and (self._ignore_args or a.args == b.args)

    def _exact(self, calls, wanted) -> bool:
        return len(calls) == len(wanted) and all(self._same(a, b) for a, b in zip(calls, wanted))

    def _in_order(self, calls, wanted) -> bool:
        remaining = iter(calls)
        return all(any(self._same(a, b) for a in remaining) for b in wanted)

    def _any_order(self, calls, wanted) -> bool:
        pool = list(calls)
        for b in wanted:
            found = next((i for i, a in enumerate(pool) if self._same(a, b)), None)
            if found is None:
                return False
            pool.pop(found)
        return True
