"""`eval create --where`: which recorded sessions become cases. A condition is `tool=NAME` (a turn taken
called the tool NAME) or `state.KEY=VALUE` (the session's state holds KEY with that value: JSON when it
parses as JSON, else the text); a session is taken when every condition holds."""

from __future__ import annotations

import json
from typing import Any, Callable

from domain.errors import InvalidArgumentError
from runtime.stores import CatalogRow

from .eval_case import Invocation, get_all_tool_calls

Condition = Callable[[CatalogRow, list[Invocation]], bool]
_MISSING = object()


def parse_where(expression: str) -> Condition:
    key, equals, wanted = expression.partition("=")
    key = key.strip()
    if not equals or not key:
        raise InvalidArgumentError(f"--where {expression!r} is not KEY=VALUE (tool=NAME or state.KEY=VALUE).")
    if key == "tool":
        return lambda row, turns: any(c.name == wanted for t in turns for c in get_all_tool_calls(t.intermediate_data))
    if key.startswith("state.") and len(key) > len("state."):
        name, value = key[len("state."):], _value(wanted)
        return lambda row, turns: (row.state or {}).get(name, _MISSING) == value
    raise InvalidArgumentError(f"--where {expression!r}: the key is `tool` or `state.KEY`, not {key!r}.")


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
