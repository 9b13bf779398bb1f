"""Reading google-genai ``Content`` from JSON quickly, for the shapes that fill a log.

Every genai model runs Python code per instance (a type-mismatch check over all of
its fields, and ``Part`` validates itself twice through a custom ``__init__``), which
made a stored event cost about 25 µs to read back, most of it in those hooks. Text,
function-call and function-response parts with plain JSON values need none of that:
``PlainContent`` gives pydantic-core a schema of those shapes alone (strict types,
every other field absent or null), which builds the genai instances without calling
any Python. Anything else (bytes, files, camelCase keys, unexpected types) fails that
schema, and pydantic goes on to genai's own validation. A property test holds the two
paths equal.
"""

from __future__ import annotations

from typing import Any

from google.genai import types
from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, SchemaValidator
from pydantic_core import core_schema as cs

_TEXT = cs.str_schema(strict=True)
_OBJECT = cs.dict_schema(cs.str_schema(strict=True), cs.any_schema())


def _model(cls: type, fields: dict[str, CoreSchema], required: tuple[str, ...] = ()) -> CoreSchema:
    """``cls`` built from ``fields`` (those not ``required``: None when absent); every other field
    of the model absent or null."""
    def field(name: str) -> Any:
        schema = fields.get(name, cs.none_schema())
        return cs.model_field(schema if name in required else cs.with_default_schema(schema, default=None))

    return cs.model_schema(cls, cs.model_fields_schema({name: field(name) for name in cls.model_fields},
                                                       extra_behavior="forbid"), extra_behavior="forbid")


def _part(fields: dict[str, CoreSchema], required: str) -> CoreSchema:
    return _model(types.Part, fields, (required,))


_PART = cs.union_schema(
    [
        _part({"text": _TEXT, "thought": cs.bool_schema(strict=True)}, "text"),
        _part({"function_call": _model(types.FunctionCall, {"id": _TEXT, "name": _TEXT, "args": _OBJECT})},
              "function_call"),
        _part({"function_response": _model(types.FunctionResponse, {"id": _TEXT, "name": _TEXT,
                                                                    "response": _OBJECT})}, "function_response"),
    ],
    mode="left_to_right",
)
PLAIN_CONTENT_SCHEMA = _model(types.Content, {"role": cs.nullable_schema(_TEXT),
                                              "parts": cs.nullable_schema(cs.list_schema(_PART))})
plain_content = SchemaValidator(PLAIN_CONTENT_SCHEMA)  # the fast path alone: raises for other shapes


class PlainContent:
    """Annotates a ``types.Content`` field: read from JSON through the plain shapes' schema
    first, then, when that fails, through genai's own validation; from Python, genai's alone."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        full = handler(source)
        fast = cs.union_schema([PLAIN_CONTENT_SCHEMA, full], mode="left_to_right")
        return cs.json_or_python_schema(json_schema=fast, python_schema=full)

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return handler(schema["python_schema"])  # what it accepts is genai's Content: the plain shapes are a subset
