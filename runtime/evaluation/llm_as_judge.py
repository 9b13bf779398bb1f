"""Metrics scored by a judge model, as google-adk 2.13's `LlmAsJudge` scores them: per turn one prompt, sent
`num_samples` times (at most `parallelism_limit` at once) to the judge; each answer parsed into a score; the
samples of a turn aggregated, then the turns. A turn whose judge call raised is NOT_EVALUATED."""

from __future__ import annotations

import asyncio
import logging
from abc import abstractmethod
from contextlib import aclosing
from typing import Optional, Union

from google.genai import types as genai_types
from pydantic import ValidationError

from domain.errors import InvalidArgumentError

from .common import EvalBaseModel
from .eval_case import IntermediateData, Invocation, InvocationEvents
from .eval_metrics import EvalMetric, EvalStatus, LlmAsAJudgeCriterion, metric_threshold
from .eval_rubrics import RubricScore
from .evaluator import EvaluationResult, Evaluator, PerInvocationResult, check_lengths

logger = logging.getLogger(__name__)

# google-adk's eval runs retry a judge call on these statuses, with these delays.
RETRY_OPTIONS = genai_types.HttpRetryOptions(attempts=7, initial_delay=5.0, max_delay=120, exp_base=2.0,
                                              http_status_codes=[408, 429, 500, 502, 503, 504])


class AutoRaterScore(EvalBaseModel):
    score: Optional[float] = None
    rubric_scores: Optional[list[RubricScore]] = None


class JudgeCriterionError(InvalidArgumentError):
    """A judge-model metric configured with a criterion it cannot read."""


class JudgedMetric(Evaluator):
    """A metric a judge model scores: its criterion read, its judge made, its requests built and answered."""

    criterion_type: type = LlmAsAJudgeCriterion

    def __init__(self, eval_metric: EvalMetric):
        from runtime.models.registry import LLMRegistry

        try:
            if eval_metric.criterion is None:
                raise ValueError("no criterion")
            self._criterion = self.criterion_type.model_validate(eval_metric.criterion.model_dump())
        except (ValidationError, ValueError) as e:
            raise JudgeCriterionError(f"`{eval_metric.metric_name}` metric expects a criterion of type "
                                      f"`{self.criterion_type.__name__}`: {e}") from e
        self._threshold = metric_threshold(eval_metric)
        self._options = self._criterion.judge_model_options
        self._judge = LLMRegistry.new_llm(self._options.judge_model)

    def judge_request(self, prompt: str):
        """The request the judge gets: the prompt as one user message, tools' automatic calling off."""
        from runtime.models.llm_request import LlmRequest

        config = (self._options.judge_model_config.model_copy(deep=True) if self._options.judge_model_config
                  else genai_types.GenerateContentConfig())
        config.automatic_function_calling = genai_types.AutomaticFunctionCallingConfig(disable=True)
        config.http_options = config.http_options or genai_types.HttpOptions()
        config.http_options.retry_options = config.http_options.retry_options or RETRY_OPTIONS
        return LlmRequest(model=self._options.judge_model, config=config, contents=[
            genai_types.Content(role="user", parts=[genai_types.Part(text=prompt)])])

    async def ask_judge(self, request):
        """The judge's answer to one request (not streaming: its first response)."""
        async with aclosing(self._judge.generate_content_async(request)) as answers:
            async for answer in answers:
                return answer
        raise RuntimeError("LLM evaluation failed: no response received from judge model")


class LlmAsJudge(JudgedMetric):
    expected_invocations_required: bool = False

    @abstractmethod
    def format_auto_rater_prompt(self, actual: Invocation, expected: Optional[Invocation]) -> str: ...

    @abstractmethod
    def convert_auto_rater_response_to_score(self, response) -> AutoRaterScore: ...

    @abstractmethod
    def aggregate_per_invocation_samples(self, samples: list[PerInvocationResult]) -> PerInvocationResult: ...

    @abstractmethod
    def aggregate_invocation_results(self, results: list[PerInvocationResult]) -> EvaluationResult: ...

    async def _sample(self, request, actual: Invocation, expected: Optional[Invocation]) -> PerInvocationResult:
        found = self.convert_auto_rater_response_to_score(await self.ask_judge(request))
        return PerInvocationResult(actual_invocation=actual, expected_invocation=expected, score=found.score,
                                   eval_status=judged_status(found.score, self._threshold),
                                   rubric_scores=found.rubric_scores)

    async def evaluate_invocations(self, actual_invocations, expected_invocations=None, conversation_scenario=None
                                   ) -> EvaluationResult:
        if self.expected_invocations_required and expected_invocations is None:
            raise ValueError("expected_invocations is needed by this metric.")
        check_lengths(actual_invocations, expected_invocations)
        expected_each = expected_invocations or [None] * len(actual_invocations)
        limit = asyncio.Semaphore(self._options.parallelism_limit)

        async def sample(request, actual, expected):
            async with limit:
                return await self._sample(request, actual, expected)

        turns = list(zip(actual_invocations, expected_each))
        requests = [self.judge_request(self.format_auto_rater_prompt(a, e)) for a, e in turns]
        n = self._options.num_samples
        # every sample of every turn at once, as google-adk does (the semaphore keeps their order)
        samples = await asyncio.gather(*(sample(requests[i], *turns[i]) for i in range(len(turns)) for _ in range(n)),
                                       return_exceptions=True)
        per_turn = []
        for i, (actual, expected) in enumerate(turns):
            mine = samples[i * n:(i + 1) * n]
            failed = [s for s in mine if isinstance(s, BaseException)]
            for error in failed:
                if isinstance(error, InvalidArgumentError):  # no credentials, no such model: not a judgment
                    raise error
            for error in failed:
                logger.warning("A judge sample failed for turn %d: %s", i, error, exc_info=error)
            per_turn.append(PerInvocationResult(actual_invocation=actual, expected_invocation=expected)
                            if failed else self.aggregate_per_invocation_samples(mine))
        return self.aggregate_invocation_results(per_turn) if per_turn else EvaluationResult()


def judged_status(score: Optional[float], threshold: float) -> EvalStatus:
    if score is None:
        return EvalStatus.NOT_EVALUATED
    return EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED


def text_of(content: Union[genai_types.Content, Invocation, None], *, with_intermediate: bool = False
            ) -> Optional[str]:
    """A content's text parts joined by newlines; for a turn, its final response's (after the text of its
    intermediate steps when `with_intermediate`); None when there is no text."""
    if isinstance(content, Invocation):
        if not with_intermediate:
            return text_of(content.final_response)
        steps = content.intermediate_data
        if isinstance(steps, InvocationEvents):
            texts = [text_of(e.content) for e in steps.invocation_events]
        elif isinstance(steps, IntermediateData):
            texts = [text_of(genai_types.Content(parts=parts)) for _, parts in steps.intermediate_responses]
        else:
            texts = []
        texts = [t for t in texts + [text_of(content.final_response)] if t]
        return "\n".join(texts) if texts else None
    if content and content.parts:
        return "\n".join(p.text for p in content.parts if p.text)
    return None
