"""`response_match_score`: ROUGE-1 F-measure of the final response against the expected one.

Scored exactly as google-adk 2.13 scores it: google-research's `rouge-score` (the `eval` extra), with the
Porter stemmer, and a tokeniser that keeps non-ASCII words, splits CJK into characters and keeps Thai/Lao/
Khmer/Myanmar combining marks on their base letter (plain `rouge-score` drops every non-ASCII word)."""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any, Optional

from google.genai import types as genai_types

from domain.errors import InvalidArgumentError

from .eval_case import Invocation
from .eval_metrics import EvalMetric, metric_threshold
from .evaluator import EvaluationResult, Evaluator, score_each


class RougeEvaluator(Evaluator):
    def __init__(self, eval_metric: EvalMetric):
        self._threshold = metric_threshold(eval_metric)

    def evaluate_invocations(self, actual_invocations, expected_invocations=None, conversation_scenario=None
                             ) -> EvaluationResult:
        return score_each(actual_invocations, expected_invocations, self._threshold, _score)


def _score(actual: Invocation, expected: Invocation) -> float:
    return rouge_1(response_text(actual.final_response), response_text(expected.final_response)).fmeasure


def response_text(content: Optional[genai_types.Content]) -> str:
    if content and content.parts:
        return "\n".join(part.text for part in content.parts if part.text)
    return ""


def rouge_1(candidate: str, reference: str) -> Any:
    """ROUGE-1 precision, recall and F-measure of `candidate` against `reference`."""
    return _scorer().score(reference, candidate)["rouge1"]


@functools.lru_cache(maxsize=1)
def _scorer() -> Any:
    """One scorer for every turn (building one, with its stemmer, costs more than a score)."""
    try:
        from rouge_score import rouge_scorer, tokenizers
    except ImportError:
        raise InvalidArgumentError(
            "response_match_score needs the rouge-score package: pip install 'chronicle[eval]'.") from None
    return rouge_scorer.RougeScorer(["rouge1"], tokenizer=_UnicodeTokenizer(tokenizers.DefaultTokenizer(True)))


def _is_cjk(code: int) -> bool:
    return 0x4E00 <= code <= 0x9FFF or 0x3040 <= code <= 0x30FF or 0xAC00 <= code <= 0xD7AF


def _is_unspaced(code: int) -> bool:  # Thai, Lao, Myanmar, Khmer
    return 0x0E00 <= code <= 0x0EFF or 0x1000 <= code <= 0x109F or 0x1780 <= code <= 0x17FF


_NOT_ASCII_ALNUM = re.compile(r"[^a-z0-9]+")


class _UnicodeTokenizer:
    """Splits as google-adk does; ASCII words go to rouge-score's own tokeniser (which stems them)."""

    def __init__(self, ascii_tokenizer: Any):
        self._ascii = ascii_tokenizer
        # A word's tokens depend on the word alone, and stemming is most of a score's cost: each word once.
        self._word_tokens = functools.lru_cache(maxsize=1 << 16)(self._tokens_of)

    def tokenize(self, text: str) -> list[str]:
        if text.isascii():  # no normalisation or script rule changes ASCII: its words are its alphanumeric runs
            words = _NOT_ASCII_ALNUM.sub(" ", text.lower()).split()
        else:
            words = self._words(text)
        return [token for word in words for token in self._word_tokens(word)]

    @staticmethod
    def _words(text: str) -> list[str]:
        pieces: list[str] = []
        for char in unicodedata.normalize("NFKC", text).lower():
            code, mark = ord(char), unicodedata.category(char).startswith("M")
            if _is_cjk(code):
                pieces += [" ", char, " "]
            elif _is_unspaced(code):
                pieces += [char] if mark else [" ", char]
            else:
                pieces.append(char if char.isalnum() or mark else " ")
        return "".join(pieces).split()

    def _tokens_of(self, word: str) -> tuple[str, ...]:
        return tuple(self._ascii.tokenize(word)) if word.isascii() else (word,)
