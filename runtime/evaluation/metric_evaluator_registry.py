"""Which evaluator computes which metric: those computed locally, and those a judge model scores."""

from __future__ import annotations

from domain.errors import InvalidArgumentError

from ._efficiency_evaluators import (InferenceCallCountV1Evaluator, InvocationDurationV1Evaluator,
                                     TokenUsageV1Evaluator, ToolCallCountV1Evaluator)
from .eval_metrics import EvalMetric, PrebuiltMetrics
from .evaluator import Evaluator
from .final_response_match_v1 import RougeEvaluator
from .final_response_match_v2 import FinalResponseMatchV2Evaluator
from .hallucinations_v1 import HallucinationsV1Evaluator
from .rubric_based_final_response_quality_v1 import RubricBasedFinalResponseQualityV1Evaluator
from .rubric_based_tool_use_quality_v1 import RubricBasedToolUseV1Evaluator
from .trajectory_evaluator import TrajectoryEvaluator

EVALUATORS = {
    PrebuiltMetrics.TOOL_TRAJECTORY_AVG_SCORE.value: lambda m: TrajectoryEvaluator(eval_metric=m),
    PrebuiltMetrics.RESPONSE_MATCH_SCORE.value: RougeEvaluator,
    PrebuiltMetrics.FINAL_RESPONSE_MATCH_V2.value: FinalResponseMatchV2Evaluator,
    PrebuiltMetrics.RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1.value: RubricBasedFinalResponseQualityV1Evaluator,
    PrebuiltMetrics.RUBRIC_BASED_TOOL_USE_QUALITY_V1.value: RubricBasedToolUseV1Evaluator,
    PrebuiltMetrics.HALLUCINATIONS_V1.value: HallucinationsV1Evaluator,
    PrebuiltMetrics.TOOL_CALL_COUNT_V1.value: ToolCallCountV1Evaluator,
    PrebuiltMetrics.INFERENCE_CALL_COUNT_V1.value: InferenceCallCountV1Evaluator,
    PrebuiltMetrics.TOKEN_USAGE_V1.value: TokenUsageV1Evaluator,
    PrebuiltMetrics.INVOCATION_DURATION_V1.value: InvocationDurationV1Evaluator,
}


class UnsupportedMetricError(InvalidArgumentError):
    """A metric Chronicle does not compute (yet), or a name no one defines."""


def get_evaluator(eval_metric: EvalMetric) -> Evaluator:
    if eval_metric.custom_function_path:  # a metric of the user's own, from the config's custom_metrics
        from .custom_metric_evaluator import CustomMetricEvaluator

        return CustomMetricEvaluator(eval_metric, eval_metric.custom_function_path)
    make = EVALUATORS.get(eval_metric.metric_name)
    if make is None:
        raise UnsupportedMetricError(
            f"Metric {eval_metric.metric_name!r} is not computed by Chronicle: the metrics here are "
            f"{', '.join(EVALUATORS)} (the other judge-model and multi-turn metrics are not supported yet; "
            "a metric of your own goes in the config's custom_metrics).")
    return make(eval_metric)
