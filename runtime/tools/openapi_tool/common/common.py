"""What the OpenAPI tools make of a parameter: its Python name and type, and its docstring line
(google.adk.tools.openapi_tool.common.common)."""

from __future__ import annotations

import keyword
import re
from typing import Any, Dict, List, Optional, Union

from pydantic import BaseModel, Field, model_serializer

from runtime.tools.openapi_tool.models import openapi_models

Schema = openapi_models.Schema
Response = openapi_models.Response
Reference = openapi_models.Reference

_LOCATION_NAMES = {"body": "body", "query": "query_param", "path": "path_param", "header": "header_param",
                   "cookie": "cookie_param"}
_SCALARS = {"integer": (int, "int"), "number": (float, "float"), "boolean": (bool, "bool"), "string": (str, "str")}
_ARRAY_VALUES = {"integer": List[int], "number": List[float], "boolean": List[bool], "string": List[str],
                 "object": List[Dict[str, Any]], "array": List[List[Any]]}


def to_snake_case(text: str) -> str:
    """`camelCase`, `UpperCamel`, `REST API`, `a-b c` -> `camel_case`, `upper_camel`, `rest_api`, `a_b_c`."""
    text = re.sub(r"[^a-zA-Z0-9]+", "_", text)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
    return re.sub(r"_+", "_", text.lower()).strip("_")


def rename_python_keywords(s: str, prefix: str = "param_") -> str:
    """`if` -> `param_if`: a Python keyword cannot name a parameter."""
    return prefix + s if keyword.iskeyword(s) else s


def schema_of(value: object, *, context: str) -> Any:
    """A concrete Schema for a schema-bearing OpenAPI field: absent or `true` is the empty schema,
    `false` or an unresolved `$ref` cannot describe a value and is refused."""
    if value is None or value is True:
        return Schema()
    if value is False:
        raise ValueError(f"{context} uses an unsatisfiable false schema")
    if isinstance(value, Schema):
        return value
    if isinstance(value, Reference):
        raise ValueError(f"{context} contains unresolved reference {value.ref!r}")
    if isinstance(value, str):
        return Schema.model_validate_json(value)
    if isinstance(value, dict):
        return Schema.model_validate(value)
    raise TypeError(f"{context} must be an OpenAPI schema, got {type(value)!r}")


class ApiParameter(BaseModel):
    """One parameter of an operation, with the Python name and type the model sees."""

    original_name: str
    param_location: str
    param_schema: Union[str, Schema]
    description: Optional[str] = ""
    py_name: Optional[str] = ""
    type_value: object = Field(default=None, init_var=False)
    type_hint: Optional[str] = Field(default=None, init_var=False)
    required: bool = False

    def model_post_init(self, _: Any) -> None:
        if not self.py_name:
            self.py_name = rename_python_keywords(to_snake_case(self.original_name)) or _LOCATION_NAMES.get(
                self.param_location or "", "value")
        if isinstance(self.param_schema, str):
            self.param_schema = Schema.model_validate_json(self.param_schema)
        self.description = self.description or self.param_schema.description or ""
        self.type_value = TypeHintHelper.get_type_value(self.param_schema)
        self.type_hint = TypeHintHelper.get_type_hint(self.param_schema)

    @model_serializer
    def _serialize(self) -> dict[str, object]:
        return {"original_name": self.original_name, "param_location": self.param_location,
                "param_schema": self.param_schema, "description": self.description, "py_name": self.py_name}

    def __str__(self) -> str:
        return f"{self.py_name}: {self.type_hint}"

    def to_arg_string(self) -> str:
        return f"{self.py_name}={self.py_name}"

    def to_dict_property(self) -> str:
        return f'"{self.py_name}": {self.py_name}'

    def to_pydoc_string(self) -> str:
        return PydocHelper.generate_param_doc(self)


def _single_type(schema: Any) -> Optional[str]:
    """The schema's one JSON type (`["string", "null"]` counts as string), else None."""
    if schema is None or isinstance(schema, bool):
        return None
    kind = schema.type
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        return kinds[0] if len(kinds) == 1 else None
    return kind


class TypeHintHelper:
    """The Python type (value and spelling) of a schema."""

    @staticmethod
    def get_type_value(schema: Any) -> Any:
        kind = None if isinstance(schema, bool) else _single_type(schema)
        if kind in _SCALARS:
            return _SCALARS[kind][0]
        if kind == "array":
            return _ARRAY_VALUES.get(_single_type(schema.items) or "", List[Any])
        return Dict[str, Any] if kind == "object" else Any

    @staticmethod
    def get_type_hint(schema: Any) -> str:
        kind = None if isinstance(schema, bool) else _single_type(schema)
        if kind in _SCALARS:
            return _SCALARS[kind][1]
        if kind == "array":
            item = _single_type(schema.items) or ""
            if item == "object":
                return "List[Dict[str, Any]]"
            return f"List[{_SCALARS[item][1] if item in _SCALARS else 'Any'}]"
        return "Dict[str, Any]" if kind == "object" else "Any"


def _property_lines(schema: Any, indent: str) -> str:
    """' Object properties:' and a line per property, for an object schema that has some."""
    if schema.type != "object" or not schema.properties:
        return ""
    lines = "".join(
        f"{indent}{name} ({TypeHintHelper.get_type_hint(prop)}): "
        f"{prop.description if isinstance(prop, Schema) and prop.description else ''}\n"
        for name, prop in schema.properties.items())
    return " Object properties:\n" + lines


class PydocHelper:
    """Docstring lines for parameters and return values."""

    @staticmethod
    def generate_param_doc(param: ApiParameter) -> str:
        description = param.description.strip() if param.description else ""
        return f"{param.py_name} ({param.type_hint}): {description}" + _property_lines(param.param_schema, " " * 7)

    @staticmethod
    def generate_return_doc(responses: Dict[str, Any]) -> str:
        """What the first 2xx response with content returns (numeric codes first, lowest wins)."""
        candidates = [(code, r) for code, r in responses.items()
                      if code.startswith("2") and isinstance(r, Response) and r.content]
        if not candidates:
            return ""
        _, response = min(candidates, key=lambda c: (0, int(c[0])) if c[0].isdigit() else (1, c[0]))
        content = response.content
        media = content.get("application/json") or next(iter(content.values()), None)
        if media is None:
            return ""
        schema = schema_of(media.schema_, context="response body")
        hint = TypeHintHelper.get_type_hint(schema)
        description = (response.description or "").strip()
        return f"Returns ({hint}): {description}" + _property_lines(schema, " " * 8)
