"""Example: one few-shot example, a user input and the turns that answer it."""

from __future__ import annotations

from google.genai import types
from pydantic import BaseModel


class Example(BaseModel):
    input: types.Content
    output: list[types.Content]
