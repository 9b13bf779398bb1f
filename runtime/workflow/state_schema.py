"""Checking state changes against a workflow's `state_schema` (a pydantic model), before anything
is written. Keys with a prefix (`app:`, `user:`, `temp:`, or any `owner:key`) are not checked, as in ADK."""

from __future__ import annotations

import functools
from typing import Any, Mapping, Optional

from pydantic import BaseModel, TypeAdapter, ValidationError

from domain.state import State
from runtime.workflow.errors import StateSchemaError


@functools.lru_cache(maxsize=512)
def _adapter(schema: type[BaseModel], key: str) -> TypeAdapter:
    return TypeAdapter(schema.model_fields[key].rebuild_annotation())


def check_state_entry(schema: Optional[type[BaseModel]], key: str, value: Any) -> None:
    if schema is None or ":" in key:
        return
    if key not in schema.model_fields:
        raise StateSchemaError(
            f"State key {key!r} is not declared in state schema {schema.__name__}; "
            f"declared keys: {sorted(schema.model_fields)}."
        )
    try:
        _adapter(schema, key).validate_python(value)
    except ValidationError as error:
        raise StateSchemaError(
            f"Value {value!r} for state key {key!r} does not fit {schema.__name__}.{key}: {error}"
        ) from error


def check_state_delta(schema: Optional[type[BaseModel]], delta: Mapping[str, Any]) -> None:
    for key, value in delta.items():
        check_state_entry(schema, key, value)


class SchemaState(State):
    """A State whose writes are checked first: a refused write changes nothing."""

    def __init__(self, value: dict[str, Any], delta: dict[str, Any], schema: Optional[type[BaseModel]]):
        super().__init__(value, delta)
        self._schema = schema

    def __setitem__(self, key: str, value: Any) -> None:
        check_state_entry(self._schema, key, value)
        super().__setitem__(key, value)
