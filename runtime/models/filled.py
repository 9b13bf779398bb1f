"""google-genai objects the runtime fills in itself, made as copies of a blank one.

Constructing a google-genai type validates the fields given and, in google-genai 2.x, also runs a
Python check over every field the type has (tens of them in Part, Tool or GenerateContentConfig):
on a turn's path, more than the turn's own bookkeeping. A copy of a blank instance with the fields
set costs about a fifth. Nothing is validated, so this is only for values the runtime has just made
and knows to be of the field's type (never a user's or a tool's own objects)."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_BLANKS: dict[type, Any] = {}


def filled(cls: type[M], **fields: Any) -> M:
    """`cls(**fields)`, without the validation: `fields` set on a shallow copy of a blank `cls`."""
    blank = _BLANKS.get(cls)
    if blank is None:
        blank = cls()
        # a shallow copy shares every default it does not replace: they must all be None
        assert all(value is None for value in blank.__dict__.values()), f"{cls.__name__} has mutable defaults"
        _BLANKS[cls] = blank
    return blank.model_copy(update=fields)
