"""The informational efficiency metrics: tool calls, model calls, tokens and seconds per turn.

They never pass or fail a case (status INFORMATIONAL) and refuse a threshold; the case's value is the mean
over the turns that report one (a turn with no figure is n/a, never zero)."""

from __future__ import annotations

from typing import Callable, Optional

from .eval_case import Invocation, InvocationEvents, get_all_tool_calls, get_all_usage_metadata, is_model_call
from .eval_metrics import EvalMetric, EvalStatus, TokenUsageDetails
from .evaluator import EvaluationResult, Evaluator, PerInvocationResult


class _EfficiencyEvaluator(Evaluator):
    def __init__(self, eval_metric: Optional[EvalMetric] = None):
        if eval_metric is not None and (eval_metric.threshold is not None or eval_metric.criterion is not None):
            raise ValueError(f"`{eval_metric.metric_name}` does not support a threshold: it reports a value and "
                             "never passes or fails. Remove it from `criteria` entirely; it is reported "
                             "automatically on every eval.")

    value: Callable[[Invocation], Optional[float]]

    def evaluate_invocations(self, actual_invocations, expected_invocations=None, conversation_scenario=None
                             ) -> EvaluationResult:
        results = [PerInvocationResult(actual_invocation=a, score=self.value(a),
                                       eval_status=EvalStatus.INFORMATIONAL) for a in actual_invocations]
        values = [r.score for r in results if r.score is not None]
        return EvaluationResult(overall_score=sum(values) / len(values) if values else None,
                                overall_eval_status=EvalStatus.INFORMATIONAL, per_invocation_results=results)


class ToolCallCountV1Evaluator(_EfficiencyEvaluator):
    def value(self, invocation: Invocation) -> Optional[float]:
        return float(len(get_all_tool_calls(invocation.intermediate_data)))


class InferenceCallCountV1Evaluator(_EfficiencyEvaluator):
    def value(self, invocation: Invocation) -> Optional[float]:
        if not isinstance(invocation.intermediate_data, InvocationEvents):
            return None
        return float(sum(1 for e in invocation.intermediate_data.invocation_events if is_model_call(e)))


class InvocationDurationV1Evaluator(_EfficiencyEvaluator):
    def value(self, invocation: Invocation) -> Optional[float]:
        return invocation.duration


def _plus(total: Optional[int], *counts: Optional[int]) -> Optional[int]:
    """Sums counts, staying None while nothing was reported (n/a is not zero)."""
    for count in counts:
        if count is not None:
            total = (total or 0) + count
    return total


def token_usage(invocation: Invocation) -> TokenUsageDetails:
    """Input (prompt + tool-use prompt) and output (candidates + thoughts) tokens of one turn's model calls."""
    into = out = None
    for usage in get_all_usage_metadata(invocation):
        into = _plus(into, usage.prompt_token_count, usage.tool_use_prompt_token_count)
        out = _plus(out, usage.candidates_token_count, usage.thoughts_token_count)
    total = None if into is None and out is None else (into or 0) + (out or 0)
    return TokenUsageDetails(total_tokens=total, input_tokens=into, output_tokens=out)


class TokenUsageV1Evaluator(_EfficiencyEvaluator):
    def evaluate_invocations(self, actual_invocations, expected_invocations=None, conversation_scenario=None
                             ) -> EvaluationResult:
        details = [token_usage(a) for a in actual_invocations]
        results = [PerInvocationResult(actual_invocation=a, score=d.total_tokens, token_usage_details=d,
                                       eval_status=EvalStatus.INFORMATIONAL)
                   for a, d in zip(actual_invocations, details)]
        if not results:
            return EvaluationResult(overall_eval_status=EvalStatus.INFORMATIONAL)

        def mean(field: str) -> Optional[float]:  # over every turn: a count one turn omits was zero there
            present = [getattr(d, field) for d in details if getattr(d, field) is not None]
            return sum(present) / len(details) if present else None

        overall = TokenUsageDetails(**{f: mean(f) for f in TokenUsageDetails.model_fields})
        return EvaluationResult(overall_score=overall.total_tokens, overall_eval_status=EvalStatus.INFORMATIONAL,
                                per_invocation_results=results, overall_token_usage_details=overall)
