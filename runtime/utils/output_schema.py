"""What an agent's `output_schema` may be, and how its answer is read back, as in google-adk 2.13:
a pydantic model class, `list[...]` (of models or of plain types), a dict (a JSON schema) or a
`types.Schema`. A model gives its dict, a list of models the list of their dicts, anything else the
parsed JSON as it is."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, get_args, get_origin

from google.genai import types
from pydantic import BaseModel, TypeAdapter

SchemaType = types.SchemaUnion

# An optional language tag after the opening fence ("```json"); anchored, so it cannot backtrack.
_FENCE_LANGUAGE = re.compile(r"^[A-Za-z0-9_]*[ \t]*\n?")


def _unannotated(schema: Any) -> Any:
    return get_args(schema)[0] if get_origin(schema) is Annotated else schema


def _is_model(schema: Any) -> bool:
    schema = _unannotated(schema)
    return isinstance(schema, type) and issubclass(schema, BaseModel)


def list_item_model(schema: Any) -> type[BaseModel] | None:
    """The model class of a `list[SomeModel]` schema, else None."""
    schema = _unannotated(schema)
    args = get_args(schema) if get_origin(schema) is list else ()
    return _unannotated(args[0]) if args and _is_model(args[0]) else None


def _without_code_fence(text: str) -> str:
    """The JSON inside a ```json … ``` fence wrapping the whole answer (models add one at times,
    most often with tools, where the schema is not enforced); other text unchanged."""
    stripped = text.strip()
    if len(stripped) >= 6 and stripped.startswith("```") and stripped.endswith("```"):
        return _FENCE_LANGUAGE.sub("", stripped[3:-3], count=1).strip()
    return text


def parse_output(schema: Any, text: str) -> Any:
    """The agent's answer `text` read by its `output_schema` (raises ValueError when it does not fit)."""
    text = _without_code_fence(text)
    if _is_model(schema):
        return _unannotated(schema).model_validate_json(text).model_dump(exclude_none=True)
    if list_item_model(schema) is not None:
        return [item.model_dump(exclude_none=True) for item in TypeAdapter(schema).validate_json(text)]
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"Invalid JSON in schema value: {error}") from error
