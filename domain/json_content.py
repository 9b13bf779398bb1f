"""Reading google-genai ``Content`` from JSON quickly, for the shapes that fill a log.

Every genai model runs Python code per instance (a type-mismatch check over all of
its fields, and ``Part`` validates itself twice through a custom ``__init__``), which
made a stored event cost about 25 µs to read back, most of it in those hooks. Text,
function-call and function-response parts with plain JSON values need none of that:
they are built here directly. Anything else (bytes, files, camelCase keys, unexpected
types) returns None, and the caller falls back to genai's own validation. A property
test holds the two paths equal.
"""

from __future__ import annotations

from typing import Any

from google.genai import types

_PLAIN_FIELDS: dict[type, dict[str, tuple[type, ...]]] = {
    types.FunctionCall: {"id": (str,), "name": (str,), "args": (dict,)},
    types.FunctionResponse: {"id": (str,), "name": (str,), "response": (dict,)},
}
_PART_TEXT_FIELDS = {"text": (str,), "thought": (bool,)}
_NESTED = {"function_call": types.FunctionCall, "function_response": types.FunctionResponse}


def _model(cls: type, values: dict[str, Any]) -> Any:
    """A genai model instance from already-checked values (unset fields are None)."""
    instance = cls.__new__(cls)
    fields = _UNSET[cls].copy()
    fields.update(values)
    object.__setattr__(instance, "__dict__", fields)
    object.__setattr__(instance, "__pydantic_fields_set__", set(values))
    object.__setattr__(instance, "__pydantic_extra__", None)
    object.__setattr__(instance, "__pydantic_private__", None)
    return instance


def _plain(value: Any, fields: dict[str, tuple[type, ...]]) -> bool:
    return type(value) is dict and all(
        key in fields and type(v) in fields[key] for key, v in value.items()
    )


def _part(value: Any) -> Any:
    if type(value) is not dict or len(value) != 1:
        return _part_text(value)
    if type(value.get("text")) is str:  # the commonest part of all, checked first
        return _model(types.Part, value)
    ((key, nested),) = value.items()
    cls = _NESTED.get(key)
    if cls is None:
        return _part_text(value)
    if not _plain(nested, _PLAIN_FIELDS[cls]):
        return None
    return _model(types.Part, {key: _model(cls, nested)})


def _part_text(value: Any) -> Any:
    if not value or not _plain(value, _PART_TEXT_FIELDS):
        return None
    return _model(types.Part, value)


def content_from_json(value: Any) -> types.Content | None:
    """``Content`` built from a decoded JSON object, or None when it needs full validation."""
    if type(value) is not dict or not value.keys() <= {"role", "parts"}:
        return None
    role, parts = value.get("role"), value.get("parts")
    if not (role is None or type(role) is str) or not (parts is None or type(parts) is list):
        return None
    if parts is not None:
        built = [_part(p) for p in parts]
        if None in built:
            return None
        value = {**value, "parts": built}
    return _model(types.Content, value)


_UNSET = {
    cls: dict.fromkeys(cls.model_fields)
    for cls in (types.Content, types.Part, types.FunctionCall, types.FunctionResponse)
}
