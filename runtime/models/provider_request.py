"""What a model other than Gemini needs from an LlmRequest, whatever its wire format: the system
text, the declared functions with JSON-Schema parameters, tool results as JSON text, and usage
and finish reasons in google-genai's types (runtime.models.lite_llm and anthropic_llm)."""

from __future__ import annotations

import json
from typing import Any, Optional

from google.genai import types

from domain.errors import InvalidArgumentError

from .llm_request import LlmRequest


def system_text(request: LlmRequest) -> Optional[str]:
    """The system instruction as one text (its text parts joined), or None."""
    instruction = request.config.system_instruction if request.config else None
    if instruction is None:
        return None
    if isinstance(instruction, str):
        return instruction or None
    items = instruction.parts if isinstance(instruction, types.Content) else instruction
    items = items if isinstance(items, list) else [items]
    texts = [i if isinstance(i, str) else getattr(i, "text", None) for i in items or []]
    return "\n\n".join(t for t in texts if t) or None


def function_declarations(request: LlmRequest) -> list[types.FunctionDeclaration]:
    """Every function the request declares; other tools (Gemini's built-in ones) are refused,
    since another provider cannot run them."""
    declarations: list[types.FunctionDeclaration] = []
    for tool in (request.config.tools if request.config else None) or []:
        if not isinstance(tool, types.Tool):
            continue
        declarations.extend(tool.function_declarations or [])
        built_in = [name for name, value in tool if value is not None and name != "function_declarations"]
        if built_in:
            raise InvalidArgumentError(
                f"The request declares Gemini's built-in tool {built_in[0]!r}, which only Gemini runs; "
                f"model {request.model!r} cannot. Remove the tool or use a gemini-* model."
            )
    return declarations


def parameters_schema(declaration: types.FunctionDeclaration) -> dict[str, Any]:
    """The function's parameters as a JSON Schema object."""
    if declaration.parameters_json_schema is not None:
        return dict(declaration.parameters_json_schema)
    if declaration.parameters is None:
        return {"type": "object", "properties": {}}
    return json_schema(declaration.parameters)


def json_schema(schema: types.Schema) -> dict[str, Any]:
    """A google-genai Schema as JSON Schema (lower-case types, nested schemas converted)."""
    out: dict[str, Any] = {}
    for name, value in schema.model_dump(exclude_none=True, mode="json").items():
        if name == "type":
            out["type"] = str(value).lower()
        elif name == "properties":
            out["properties"] = {k: json_schema(v) for k, v in (schema.properties or {}).items()}
        elif name == "items":
            out["items"] = json_schema(schema.items)
        elif name == "any_of":
            out["anyOf"] = [json_schema(s) for s in schema.any_of or []]
        elif name in ("description", "enum", "required", "format", "default", "minimum", "maximum",
                      "min_items", "max_items", "min_length", "max_length", "pattern", "title"):
            key = {"min_items": "minItems", "max_items": "maxItems", "min_length": "minLength",
                   "max_length": "maxLength"}.get(name, name)
            out[key] = value
    if schema.nullable and "type" in out:
        out["type"] = [out["type"], "null"]
    return out


def result_text(response: types.FunctionResponse) -> str:
    """A tool's result as the text another provider's tool-result message carries."""
    return json.dumps(response.response, default=str, ensure_ascii=False)


def call_arguments(raw: Any, name: str) -> dict[str, Any]:
    """A tool call's arguments from the provider (JSON text or a dict) as a dict."""
    if isinstance(raw, dict):
        return raw
    if not raw:
        return {}
    try:
        args = json.loads(raw)
    except json.JSONDecodeError as e:
        raise InvalidArgumentError(f"The model called {name!r} with arguments that are not JSON: {raw!r} ({e}).") from None
    if not isinstance(args, dict):
        raise InvalidArgumentError(f"The model called {name!r} with arguments that are not an object: {raw!r}.")
    return args


def usage(prompt: Optional[int], output: Optional[int]) -> Optional[types.GenerateContentResponseUsageMetadata]:
    if prompt is None and output is None:
        return None
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=prompt, candidates_token_count=output, total_token_count=(prompt or 0) + (output or 0)
    )


def finish_reason(reason: Optional[str], table: dict[str, types.FinishReason]) -> Optional[types.FinishReason]:
    """A provider's stop reason in google-genai's terms (OTHER for one the table does not know)."""
    if reason is None:
        return None
    return table.get(reason, types.FinishReason.OTHER)
