"""Rubric-based judge metrics, as google-adk 2.13 scores them: the judge answers each property with
`Property:`, `Rationale:` and `Verdict: yes|no` (and an `ID:`); a rubric's score is 1 for yes, 0 for no; a
turn's samples are combined per rubric by majority (a tie is no); a turn's score is its rubrics' mean, and
the case's the mean over every rubric score of every turn."""

from __future__ import annotations

import logging
import re
import statistics
import unicodedata
from typing import Optional

from .common import EvalBaseModel
from .eval_case import Invocation
from .eval_metrics import RubricsBasedCriterion
from .eval_rubrics import Rubric, RubricScore
from .evaluator import EvaluationResult, PerInvocationResult
from .llm_as_judge import AutoRaterScore, LlmAsJudge, judged_status, text_of

logger = logging.getLogger(__name__)

_ID = re.compile(r"(?m)^\s*ID: (.*)$")
_PROPERTY = re.compile(r"(?m)^\s*Property: (.*)$")
_RATIONALE = re.compile(r"(?<=Rationale: )(.*)")
_VERDICT = re.compile(r"(?<=Verdict: )(.*)")


class RubricAnswer(EvalBaseModel):
    rubric_id: Optional[str] = None
    property_text: Optional[str] = None
    rationale: Optional[str] = None
    score: Optional[float] = None


def parse_rubric_answers(answer: str) -> list[RubricAnswer]:
    """The judge's verdicts in order; none when properties, rationales and verdicts do not pair up."""
    properties = list(_PROPERTY.finditer(answer))
    ids = list(_ID.finditer(answer))
    rationales = _RATIONALE.findall(answer)
    scores = [1.0 if "yes" in v.lower() else 0.0 if "no" in v.lower() else None for v in _VERDICT.findall(answer)]
    if not len(properties) == len(rationales) == len(scores):
        return []
    found = []
    for i, (prop, rationale, score) in enumerate(zip(properties, rationales, scores)):
        after = properties[i - 1].start() if i else -1
        rubric_id = None
        for id_match in ids:  # the last ID between the previous property and this one
            if after < id_match.start() < prop.start():
                rubric_id = id_match.group(1).strip() or None
        found.append(RubricAnswer(rubric_id=rubric_id, property_text=prop.group(1).strip(),
                                  rationale=rationale.strip(), score=score))
    return found


_TYPOGRAPHY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                             "\u2014": "-"})


def normalized(text: object) -> str:
    """A property's text as a judge may echo it: decoration, quotes and spacing do not count."""
    if not isinstance(text, str):
        return ""
    text = unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHY)
    return re.sub(r"\s+", " ", text).strip(" *_`#>-\u2022\"'").lower()


def mean_score(scores: list[RubricScore]) -> Optional[float]:
    values = [s.score for s in scores if s.score is not None]
    return statistics.mean(values) if values else None


class RubricBasedEvaluator(LlmAsJudge):
    criterion_type = RubricsBasedCriterion
    rubric_type: Optional[str] = None  # the case's and turn's rubrics of this type are read

    def effective_rubrics(self, invocation_rubrics: Optional[list[Rubric]]) -> list[Rubric]:
        """The criterion's rubrics, then the turn's of this metric's type; an id may appear once."""
        by_id: dict[str, Rubric] = {}
        own = [r for r in invocation_rubrics or [] if not self.rubric_type or r.type == self.rubric_type]
        for scope, rubrics in (("criterion", self._criterion.rubrics), ("invocation", own)):
            for r in rubrics:
                if r.rubric_id in by_id:
                    raise ValueError(f"Rubric with rubric_id '{r.rubric_id}' already exists. Rubric defined in "
                                     f"{scope} conflicts with an existing rubric.")
                by_id[r.rubric_id] = r
        if not by_id:
            raise ValueError("Rubrics are required.")
        return list(by_id.values())

    def format_auto_rater_prompt(self, actual: Invocation, expected: Optional[Invocation]) -> str:
        self._rubrics = self.effective_rubrics(actual.rubrics)
        return self.rubric_prompt(actual, self._rubrics)

    def rubric_prompt(self, actual: Invocation, rubrics: list[Rubric]) -> str:
        raise NotImplementedError

    def convert_auto_rater_response_to_score(self, response) -> AutoRaterScore:
        text = text_of(response.content)
        answers = parse_rubric_answers(text) if text else []
        if not answers:
            logger.warning("The judge's answer has no Property/Rationale/Verdict to read: %r", text)
        by_id = {r.rubric_id: r for r in self._rubrics}
        by_text = {normalized(r.rubric_content.text_property): r for r in self._rubrics}
        scores = []
        for a in answers:
            rubric = (by_id.get(a.rubric_id) if a.rubric_id else None) or by_text.get(normalized(a.property_text))
            if rubric is None:
                logger.warning("The judge answered a property no rubric has: %r", a.property_text)
                continue
            scores.append(RubricScore(rubric_id=rubric.rubric_id, rationale=a.rationale, score=a.score))
        return AutoRaterScore(score=mean_score(scores), rubric_scores=scores)

    def aggregate_per_invocation_samples(self, samples: list[PerInvocationResult]) -> PerInvocationResult:
        votes: dict[str, tuple[list, list, list]] = {}  # rubric id -> (no score, yes, no)
        for sample in samples:
            for s in sample.rubric_scores or []:
                none, yes, no = votes.setdefault(s.rubric_id, ([], [], []))
                (none if s.score is None else yes if s.score == 1.0 else no).append(s)
        chosen = [(none[0] if not yes and not no else yes[0] if len(yes) > len(no) else no[0])
                  for none, yes, no in votes.values()]
        score = mean_score(chosen)
        return PerInvocationResult(actual_invocation=samples[0].actual_invocation,
                                   expected_invocation=samples[0].expected_invocation, score=score,
                                   rubric_scores=chosen, eval_status=judged_status(score, self._threshold))

    def aggregate_invocation_results(self, results: list[PerInvocationResult]) -> EvaluationResult:
        every: list[RubricScore] = []
        by_id: dict[str, list[RubricScore]] = {}
        for r in results:
            for s in r.rubric_scores or []:
                by_id.setdefault(s.rubric_id, []).append(s)
                every.append(s)
        overall = mean_score(every)
        return EvaluationResult(
            overall_score=overall, overall_eval_status=judged_status(overall, self._threshold),
            per_invocation_results=results,
            overall_rubric_scores=[RubricScore(
                rubric_id=rubric_id, score=mean_score(scores),
                rationale="This is an aggregated score derived from individual entries. Please refer to individual "
                          "entries in each invocation for actual rationale from the model.")
                for rubric_id, scores in by_id.items()])
