"""A set of eval cases: the `.evalset.json` file."""

from __future__ import annotations

from typing import Optional

from pydantic import BaseModel

from .eval_case import EvalCase as EvalCase


class EvalSet(BaseModel):
    eval_set_id: str
    name: Optional[str] = None
    description: Optional[str] = None
    eval_cases: list[EvalCase]
    creation_timestamp: float = 0.0
