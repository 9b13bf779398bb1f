"""Rubrics: properties a judge model says yes or no to, as google-adk 2.13 writes them in eval sets and
criteria."""

from __future__ import annotations

from typing import Optional

from .common import EvalBaseModel


class RubricContent(EvalBaseModel):
    text_property: Optional[str] = None  # e.g. "The answer names the city."


class Rubric(EvalBaseModel):
    rubric_id: str
    rubric_content: RubricContent
    description: Optional[str] = None
    type: Optional[str] = None  # e.g. FINAL_RESPONSE_QUALITY, TOOL_USE_QUALITY: which metric reads it


class RubricScore(EvalBaseModel):
    rubric_id: str
    rationale: Optional[str] = None
    score: Optional[float] = None
