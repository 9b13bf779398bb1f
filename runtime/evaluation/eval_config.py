"""`test_config.json`: which metrics an eval runs and their thresholds, as google-adk 2.13 reads it."""

from __future__ import annotations

import os
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, alias_generators, field_validator

from runtime.agents.common_configs import CodeConfig

from .eval_metrics import BaseCriterion, EvalMetric, PrebuiltMetrics, Threshold


class CustomMetricConfig(BaseModel):
    """Where a metric of the user's own is: `code_config.name`, a function's dotted path."""

    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

    code_config: CodeConfig
    metric_info: Optional[dict[str, Any]] = None  # accepted as google-adk writes it; not used to score
    description: str = ""


class EvalConfig(BaseModel):
    """`criteria` maps a metric name to a threshold, or to a criterion object with its options."""

    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

    criteria: dict[str, Union[Threshold, SerializeAsAny[BaseCriterion]]] = Field(default_factory=dict)
    # A criterion whose name is here is scored by the user's function (custom_metric_evaluator).
    custom_metrics: Optional[dict[str, CustomMetricConfig]] = None
    # Accepted so a google-adk config loads; Chronicle does not evaluate live (bidirectional) models.
    # The simulator of cases with a conversation scenario: a JSON object is the kind its `type` names.
    user_simulator_config: Optional[SerializeAsAny[Any]] = None
    live_model_config: Optional[dict[str, Any]] = None

    @field_validator("user_simulator_config", mode="before")
    @classmethod
    def _simulator_config(cls, value: Any) -> Any:
        if value is None:
            return None
        from .simulation.user_simulator_provider import simulator_config  # registers the built-in kinds

        return simulator_config(value)


DEFAULT_EVAL_CONFIG = EvalConfig(criteria={"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8})

# Reported on every eval without being asked for (and refusing a threshold).
DEFAULT_EFFICIENCY_METRICS = tuple(m.value for m in (
    PrebuiltMetrics.TOOL_CALL_COUNT_V1, PrebuiltMetrics.INFERENCE_CALL_COUNT_V1,
    PrebuiltMetrics.TOKEN_USAGE_V1, PrebuiltMetrics.INVOCATION_DURATION_V1))


def get_evaluation_criteria_or_default(eval_config_file_path: Optional[str]) -> EvalConfig:
    """The config in that file if it exists, else the default (trajectory 1.0, response match 0.8)."""
    if eval_config_file_path and os.path.exists(eval_config_file_path):
        with open(eval_config_file_path, encoding="utf-8") as f:
            return EvalConfig.model_validate_json(f.read())
    return DEFAULT_EVAL_CONFIG


def get_eval_metrics_from_config(eval_config: EvalConfig) -> list[EvalMetric]:
    """The configured metrics, then the efficiency metrics not already named."""
    metrics = []
    for name, criterion in eval_config.criteria.items():
        custom = (eval_config.custom_metrics or {}).get(name)
        if not isinstance(criterion, BaseCriterion):
            criterion = BaseCriterion(threshold=criterion)
        metrics.append(EvalMetric(metric_name=name, threshold=criterion.threshold, criterion=criterion,
                                  custom_function_path=custom.code_config.name if custom else None))
    named = {m.metric_name for m in metrics}
    return metrics + [EvalMetric(metric_name=n) for n in DEFAULT_EFFICIENCY_METRICS if n not in named]
