"""What an eval run found, per case (and per turn), in google-adk 2.13's `.evalset_result.json` shape."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, alias_generators

from .eval_metrics import EvalMetricResult, EvalMetricResultPerInvocation, EvalStatus


class EvalCaseResult(BaseModel):
    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

    eval_set_file: Optional[str] = None
    eval_set_id: str = ""
    eval_id: str = ""
    final_eval_status: EvalStatus
    overall_eval_metric_results: list[EvalMetricResult]
    eval_metric_result_per_invocation: list[EvalMetricResultPerInvocation]
    session_id: str
    session_details: Optional[Any] = None
    user_id: Optional[str] = None
    # Chronicle's: why a case failed without scores (its run raised, or took another number of turns).
    error: Optional[str] = None


class EvalSetResult(BaseModel):
    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

    eval_set_result_id: str
    eval_set_result_name: Optional[str] = None
    eval_set_id: str
    eval_case_results: list[EvalCaseResult] = Field(default_factory=list)
    creation_timestamp: float = 0.0
