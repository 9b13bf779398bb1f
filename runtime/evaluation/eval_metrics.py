"""Metric names, criteria and results, as google-adk 2.13 names and serialises them."""

from __future__ import annotations

from enum import Enum
from typing import Optional

from google.genai import types as genai_types
from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, alias_generators, field_validator

from .common import EvalBaseModel
from .eval_case import Invocation
from .eval_rubrics import Rubric, RubricScore


class EvalStatus(Enum):
    PASSED = 1
    FAILED = 2
    NOT_EVALUATED = 3
    INFORMATIONAL = 4  # a value is reported, but the metric never passes or fails a case


class PrebuiltMetrics(Enum):
    TOOL_TRAJECTORY_AVG_SCORE = "tool_trajectory_avg_score"
    RESPONSE_EVALUATION_SCORE = "response_evaluation_score"
    RESPONSE_MATCH_SCORE = "response_match_score"
    SAFETY_V1 = "safety_v1"
    FINAL_RESPONSE_MATCH_V2 = "final_response_match_v2"
    RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1 = "rubric_based_final_response_quality_v1"
    HALLUCINATIONS_V1 = "hallucinations_v1"
    RUBRIC_BASED_TOOL_USE_QUALITY_V1 = "rubric_based_tool_use_quality_v1"
    PER_TURN_USER_SIMULATOR_QUALITY_V1 = "per_turn_user_simulator_quality_v1"
    MULTI_TURN_TASK_SUCCESS_V1 = "multi_turn_task_success_v1"
    MULTI_TURN_TRAJECTORY_QUALITY_V1 = "multi_turn_trajectory_quality_v1"
    MULTI_TURN_TOOL_USE_QUALITY_V1 = "multi_turn_tool_use_quality_v1"
    RUBRIC_BASED_MULTI_TURN_TRAJECTORY_QUALITY_V1 = "rubric_based_multi_turn_trajectory_quality_v1"
    TOOL_CALL_COUNT_V1 = "tool_call_count_v1"
    INFERENCE_CALL_COUNT_V1 = "inference_call_count_v1"
    TOKEN_USAGE_V1 = "token_usage_v1"
    INVOCATION_DURATION_V1 = "invocation_duration_v1"


Threshold = float


class BaseCriterion(BaseModel):
    """A metric's threshold and options (extra options are kept for the metric that reads them)."""

    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, extra="allow")

    threshold: Threshold
    include_intermediate_responses_in_final: bool = False


class ToolTrajectoryCriterion(BaseCriterion):
    class MatchType(Enum):
        EXACT = 0  # the same calls, in the same order, nothing more
        IN_ORDER = 1  # the expected calls in order, others allowed between
        ANY_ORDER = 2  # the expected calls in any order, others allowed

    match_type: MatchType = MatchType.EXACT
    ignore_args: bool = False

    @field_validator("match_type", mode="before")
    @classmethod
    def _coerce_match_type(cls, value: object) -> object:
        if isinstance(value, str):
            normalized = value.strip().upper().replace("-", "_").replace(" ", "_")
            if normalized in cls.MatchType.__members__:
                return cls.MatchType[normalized]
        return value


class JudgeModelOptions(EvalBaseModel):
    """The judge of a judge-model metric: any model name Chronicle's LLMRegistry resolves (a Gemini name, a
    "provider/model" through LiteLLM, or a class registered by the user), sampled `num_samples` times a turn."""

    judge_model: str = "gemini-2.5-flash"
    judge_model_config: Optional[genai_types.GenerateContentConfig] = None
    num_samples: int = Field(default=5, ge=1)
    parallelism_limit: int = Field(default=1, ge=1)


class LlmAsAJudgeCriterion(BaseCriterion):
    judge_model_options: JudgeModelOptions = Field(default_factory=JudgeModelOptions)


class RubricsBasedCriterion(BaseCriterion):
    judge_model_options: JudgeModelOptions = Field(default_factory=JudgeModelOptions)
    rubrics: list[Rubric] = Field(default_factory=list)  # for every turn, beside the case's and turn's own


class HallucinationsCriterion(BaseCriterion):
    judge_model_options: JudgeModelOptions = Field(default_factory=JudgeModelOptions)
    evaluate_intermediate_nl_responses: bool = False  # the text a turn said before its final answer, too


class TokenUsageDetails(EvalBaseModel):
    total_tokens: Optional[float] = None
    input_tokens: Optional[float] = None
    output_tokens: Optional[float] = None


class DurationDetails(EvalBaseModel):
    total_seconds: Optional[float] = None


class EvalMetric(EvalBaseModel):
    metric_name: str
    threshold: Optional[float] = None
    criterion: Optional[SerializeAsAny[BaseCriterion]] = None
    custom_function_path: Optional[str] = None


class EvalMetricResultDetails(EvalBaseModel):
    rubric_scores: Optional[list[RubricScore]] = None
    token_usage_details: Optional[TokenUsageDetails] = None
    duration_details: Optional[DurationDetails] = None


class EvalMetricResult(EvalMetric):
    score: Optional[float] = None
    eval_status: EvalStatus
    details: EvalMetricResultDetails = Field(default_factory=EvalMetricResultDetails)


class EvalMetricResultPerInvocation(EvalBaseModel):
    actual_invocation: Invocation
    expected_invocation: Optional[Invocation] = None
    eval_metric_results: list[EvalMetricResult] = Field(default_factory=list)


def metric_threshold(eval_metric: EvalMetric) -> float:
    """The metric's threshold, from its criterion first."""
    if eval_metric.criterion is not None:
        return eval_metric.criterion.threshold
    if eval_metric.threshold is not None:
        return eval_metric.threshold
    raise ValueError(f"Evaluation metric {eval_metric.metric_name!r} requires a threshold.")
