"""Comparing a model request with a recorded one, the way google-adk 2.13's conformance replay does.

ADK's replay model (`cli/conformance/_conformance_test_google_llm.py`) dumps both requests without
None and default values, leaves out what varies between runs (`config.http_options`,
`config.labels`, `live_connect_config`), and then evens out what is wording rather than behaviour:

* function declarations: `transfer_to_agent`'s description is taken as one fixed sentence, other
  descriptions are stripped of surrounding blanks, `parameters` and `parameters_json_schema` are
  the same thing, and inside a schema titles, defaults and descriptions do not count, type names
  compare in lower case, `$ref`s to `$defs` are inlined, and `anyOf: [X, null]` is `X` + nullable;
  declared response schemas do not count;
* another agent's turn relayed to this one compares by its payload: the preamble ("For context:"
  or ADK 2.13's longer fenced one) and the quote markers around the payload do not count.

Everything else must be equal. This module is Chronicle's own code for those rules.
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from runtime.agents.llm_context import OTHER_AGENT_PREAMBLE
from runtime.models.llm_request import LlmRequest

_VARYING_CONFIG = ("http_options", "labels")
_NOT_COMPARED = ("live_connect_config",)
_TRANSFER_DESCRIPTION = "Transfer the question to another agent."
_SCHEMA_WORDING = ("title", "default", "description")
_SHORT_PREAMBLE = "For context:"
_QUOTE_BEGIN = "<<<BEGIN_QUOTED_AGENT_CONTENT>>>"
_QUOTE_END = "<<<END_QUOTED_AGENT_CONTENT>>>"
_QUOTED = re.compile(":\n" + re.escape(_QUOTE_BEGIN) + "\n(?P<payload>.*)\n" + re.escape(_QUOTE_END) + r"\Z", re.DOTALL)


def recorded_request(data: dict[str, Any]) -> dict[str, Any]:
    """A recorded `llm_request` (YAML as ADK writes it) in the comparable form."""
    known = {k: v for k, v in (data or {}).items() if k in LlmRequest.model_fields}
    out = comparable(LlmRequest.model_validate(known))
    # A field Chronicle's request does not have still counts: the current request cannot match it.
    for key, value in (data or {}).items():
        if key not in LlmRequest.model_fields and key not in _NOT_COMPARED and value not in (None, {}, []):
            out[key] = value
    return out


def comparable(request: LlmRequest) -> dict[str, Any]:
    """The request as ADK's replay compares it: dumped, then normalised."""
    dumped = request.model_dump(exclude_none=True, exclude_defaults=True)
    for key in _NOT_COMPARED:
        dumped.pop(key, None)
    config = dumped.get("config")
    if isinstance(config, dict):
        for key in _VARYING_CONFIG:
            config.pop(key, None)
        if not config:
            dumped.pop("config")
    return _relayed_payloads(_declarations(dumped))


def difference(recorded: dict[str, Any], current: dict[str, Any]) -> str:
    """A unified diff, recorded first, of two comparable requests ('' when they are equal)."""
    if recorded == current:
        return ""
    lines = difflib.unified_diff(
        _pretty(recorded).splitlines(), _pretty(current).splitlines(), "recorded request", "current request", lineterm=""
    )
    return "\n".join(lines)


def _pretty(data: Any) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False, default=_jsonable)


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    return getattr(value, "value", str(value))


def _declarations(data: Any) -> Any:
    if isinstance(data, list):
        return [_declarations(item) for item in data]
    if not isinstance(data, dict):
        return data
    if "name" in data and ({"description", "parameters", "parameters_json_schema"} & data.keys()):
        data = dict(data)
        if data["name"] == "transfer_to_agent":
            data["description"] = _TRANSFER_DESCRIPTION
        elif isinstance(data.get("description"), str):
            data["description"] = data["description"].strip()
        schema = data.pop("parameters", None)
        if schema is not None:
            data["parameters_json_schema"] = schema
        if "parameters_json_schema" in data:
            data["parameters_json_schema"] = _schema(data["parameters_json_schema"])
        data.pop("response", None)
        data.pop("response_json_schema", None)
    return {key: _declarations(value) for key, value in data.items()}


def _schema(data: Any) -> Any:
    if isinstance(data, list):
        return [_schema(item) for item in data]
    if not isinstance(data, dict):
        return data
    if "$defs" in data:
        definitions = data["$defs"]
        data = {k: v for k, v in _inline(data, definitions).items() if k != "$defs"}
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in _SCHEMA_WORDING:
            continue
        out[key] = _type_name(value) if key == "type" else _schema(value)
    alternatives = out.get("anyOf")
    if isinstance(alternatives, list):
        others = [a for a in alternatives if not (isinstance(a, dict) and a.get("type") == "null")]
        if len(others) == 1 and len(others) < len(alternatives) and isinstance(others[0], dict):
            out.pop("anyOf")
            out.update(others[0])
            out["nullable"] = True
    return out


def _inline(data: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(data, list):
        return [_inline(item, definitions) for item in data]
    if not isinstance(data, dict):
        return data
    ref = data.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref.rsplit("/", 1)[-1] in definitions:
        target = _inline(definitions[ref.rsplit("/", 1)[-1]], definitions)
        if isinstance(target, dict):
            return {**target, **{k: v for k, v in data.items() if k != "$ref"}}
        return target
    return {key: _inline(value, definitions) for key, value in data.items()}


def _type_name(value: Any) -> Any:
    if hasattr(value, "name") and hasattr(value, "value"):  # an enum such as types.Type.STRING
        return str(value.value).lower()
    if isinstance(value, str):
        return value.rsplit(".", 1)[-1].lower() if value.startswith("Type.") or value.isupper() else value
    return value


def _relayed_payloads(data: Any) -> Any:
    if isinstance(data, list):
        return [_relayed_payloads(item) for item in data]
    if not isinstance(data, dict):
        return data
    parts = data.get("parts")
    if data.get("role") == "user" and isinstance(parts, list) and len(parts) >= 2 and _is_preamble(parts[0]):
        return {**data, "parts": [_payload(part) for part in parts]}
    return {key: _relayed_payloads(value) for key, value in data.items()}


def _is_preamble(part: Any) -> bool:
    text = part.get("text") if isinstance(part, dict) else None
    return text in (_SHORT_PREAMBLE, OTHER_AGENT_PREAMBLE)  # exactly: a user turn that opens so is still a user turn


def _payload(part: Any) -> Any:
    if not isinstance(part, dict) or not isinstance(part.get("text"), str):
        return part
    if _is_preamble(part):
        return {**part, "text": _SHORT_PREAMBLE}
    return {**part, "text": _QUOTED.sub(r": \g<payload>", part["text"])}
