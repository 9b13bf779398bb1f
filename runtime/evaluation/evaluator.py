"""The interface every metric implements: score the actual turns against the expected ones."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Optional

from pydantic import BaseModel

from .eval_case import Invocation
from .eval_metrics import DurationDetails, EvalStatus as EvalStatus, TokenUsageDetails
from .eval_rubrics import RubricScore


class PerInvocationResult(BaseModel):
    actual_invocation: Invocation
    expected_invocation: Optional[Invocation] = None
    score: Optional[float] = None
    eval_status: EvalStatus = EvalStatus.NOT_EVALUATED
    rubric_scores: Optional[list[RubricScore]] = None
    token_usage_details: Optional[TokenUsageDetails] = None
    duration_details: Optional[DurationDetails] = None


class EvaluationResult(BaseModel):
    overall_score: Optional[float] = None
    overall_eval_status: EvalStatus = EvalStatus.NOT_EVALUATED
    per_invocation_results: list[PerInvocationResult] = []
    overall_rubric_scores: Optional[list[RubricScore]] = None
    overall_token_usage_details: Optional[TokenUsageDetails] = None


class Evaluator(ABC):
    @abstractmethod
    def evaluate_invocations(
        self, actual_invocations: list[Invocation], expected_invocations: Optional[list[Invocation]] = None,
        conversation_scenario: Optional[dict] = None,
    ) -> EvaluationResult: ...


def status_at(score: float, threshold: float) -> EvalStatus:
    """PASSED at or above the threshold (every reference metric here is higher-is-better)."""
    return EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED


def check_lengths(actual: list[Invocation], expected: Optional[list[Invocation]]) -> None:
    """Expected turns, when given, pair one to one with the actual ones."""
    if expected is not None and len(actual) != len(expected):
        raise ValueError(f"actual_invocations and expected_invocations must have the same length; "
                         f"got {len(actual)} and {len(expected)}.")


def score_each(actual: list[Invocation], expected: Optional[list[Invocation]], threshold: float, score) -> EvaluationResult:
    """A reference metric: `score(actual, expected)` per turn, the case's score their mean."""
    if expected is None:
        raise ValueError("expected_invocations is required for this metric.")
    check_lengths(actual, expected)
    results = []
    for a, e in zip(actual, expected):
        value = score(a, e)
        results.append(PerInvocationResult(actual_invocation=a, expected_invocation=e, score=value,
                                           eval_status=status_at(value, threshold)))
    if not results:
        return EvaluationResult()
    overall = sum(r.score for r in results) / len(results)
    return EvaluationResult(overall_score=overall, overall_eval_status=status_at(overall, threshold),
                            per_invocation_results=results)
