"""SetModelResponseTool: how an agent with both an `output_schema` and tools gives its answer.

The Gemini API (not Vertex AI) refuses a response schema together with function calling, so, as
google-adk 2.13 does, such an agent is not sent `response_schema`: it gets this tool, whose
parameters are the schema's fields, and an instruction to answer through it. The tool's validated
result becomes the agent's final answer (a model event holding it as JSON text).
"""

from __future__ import annotations

import inspect
import json
import os
import types as pytypes
from typing import Any, Final, Optional

from google.genai import types
from pydantic import BaseModel, TypeAdapter, ValidationError

from domain.events import Event
from runtime.tools.base_tool import BaseTool
from runtime.tools.declarations import build_function_declaration
from runtime.tools.tool_context import ToolContext
from runtime.utils.output_schema import list_item_model

# google-adk 2.13's words, which the model must see unchanged.
INSTRUCTION = (
    "IMPORTANT: You have access to other tools, but you must provide your final response using the "
    "set_model_response tool with the required structured format. After using any other tools needed to "
    "complete the task, always call set_model_response with your final answer in the specified schema format."
)


def sends_schema_with_tools(llm: Any) -> bool:
    """Whether the model takes a response schema together with tools: what it says of itself
    (`capabilities.output_schema_and_tools`), else only Gemini on Vertex AI."""
    capabilities = getattr(llm, "capabilities", None)
    if capabilities is not None and hasattr(capabilities, "output_schema_and_tools"):
        return bool(capabilities.output_schema_and_tools)
    on_vertex = os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in ("1", "true")
    name = str(getattr(llm, "model", "") or "")
    return on_vertex and name.split("/")[-1].startswith("gemini")


class SetModelResponseTool(BaseTool):
    """`set_model_response(...)`: the model's final, structured answer, validated against the schema."""

    NAME: Final[str] = "set_model_response"

    def __init__(self, output_schema: Any):
        if isinstance(output_schema, types.Schema):
            output_schema = output_schema.model_dump(exclude_none=True)
        self.output_schema = output_schema
        self._model = output_schema if isinstance(output_schema, type) and issubclass(output_schema, BaseModel) else None
        self._list_model = list_item_model(output_schema)

        def set_model_response() -> str:
            """Set your final response using the required output schema.

            Use this tool to provide your final structured answer instead
            of outputting text directly.
            """
            return "Response set successfully."

        set_model_response.__signature__ = inspect.Signature(self._parameters())  # type: ignore[attr-defined]
        self.func = set_model_response
        super().__init__(name=self.NAME, description=inspect.cleandoc(set_model_response.__doc__ or ""))

    def _parameters(self) -> list[inspect.Parameter]:
        """The schema's fields as keyword parameters (a list schema: `items`; anything else: `response`)."""
        keyword = inspect.Parameter.KEYWORD_ONLY
        if self._model is not None:
            return [
                inspect.Parameter(name, keyword, annotation=field.annotation, default=inspect.Parameter.empty
                                  if field.is_required() else field.get_default(call_default_factory=True))
                for name, field in self._model.model_fields.items()
            ]
        if self._list_model is not None:
            return [inspect.Parameter("items", keyword, annotation=pytypes.GenericAlias(list, self._list_model))]
        annotation = dict if isinstance(self.output_schema, dict) else self.output_schema
        return [inspect.Parameter("response", keyword, annotation=annotation)]

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        declaration = build_function_declaration(self.func, ignore=())
        if self._model is not None and declaration.parameters_json_schema is not None:
            # The fields' descriptions, which parameters cannot carry, come from the schema itself.
            _copy_descriptions(declaration.parameters_json_schema, self._model.model_json_schema())
        return declaration

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        try:
            if self._model is not None:
                result: Any = self._model.model_validate(args).model_dump(exclude_none=True)
            elif self._list_model is not None:
                items = TypeAdapter(self.output_schema).validate_python(args.get("items", []))
                result = [item.model_dump(exclude_none=True) for item in items]
            else:
                result = args.get("response")
        except ValidationError as error:
            return {
                "error": f"Validation Error found:\n{error}\nRecall the set_model_response function correctly, fix "
                "the errors, and call it again with all required fields using the correct types."
            }
        tool_context.actions.set_model_response = result
        return result


def structured_answer(ctx: Any, author: str, result: Any) -> Optional[Any]:
    """The model event that gives set_model_response's validated result as the agent's answer (JSON
    text), after the event holding that tool's response; None for any other response."""
    value = result.actions.set_model_response
    if value is None or not any(r.name == SetModelResponseTool.NAME for r in result.get_function_responses()):
        return None
    return Event(invocation_id=ctx.invocation_id, author=author, branch=ctx.branch,
                 content=types.Content(role="model", parts=[types.Part(text=json.dumps(value, ensure_ascii=False))]))


def _copy_descriptions(target: dict[str, Any], source: dict[str, Any]) -> None:
    """Copies `description`s from `source` into `target`, through properties and list items."""
    pairs = []
    source_properties, target_properties = source.get("properties"), target.get("properties")
    if isinstance(source_properties, dict) and isinstance(target_properties, dict):
        pairs += [(target_properties[n], s) for n, s in source_properties.items()
                  if isinstance(s, dict) and isinstance(target_properties.get(n), dict)]
    if isinstance(source.get("items"), dict) and isinstance(target.get("items"), dict):
        pairs.append((target["items"], source["items"]))
    for target_part, source_part in pairs:
        if isinstance(source_part.get("description"), str) and source_part["description"]:
            target_part["description"] = source_part["description"]
        _copy_descriptions(target_part, source_part)
