"""One OpenAPI operation as a Python function: its parameters (path, query, header, cookie and the
request body's properties), return type, docstring and JSON schema
(google.adk.tools.openapi_tool.openapi_spec_parser.operation_parser)."""

from __future__ import annotations

import inspect
from textwrap import dedent
from typing import Any, Dict, List, Optional, Union

from runtime.tools.openapi_tool.common.common import (
    ApiParameter,
    PydocHelper,
    Schema,
    Reference,
    Response,
    rename_python_keywords,
    schema_of,
    to_snake_case,
)
from runtime.tools.openapi_tool.models import jsonable_encoder, openapi_models

Operation = openapi_models.Operation
Parameter = openapi_models.Parameter
RequestBody = openapi_models.RequestBody

MAX_TOOL_NAME_LENGTH = 60
_MAX_TOOL_NAME_LENGTH = MAX_TOOL_NAME_LENGTH  # google-adk's spelling


def required_scheme_name(security: Optional[List[Dict[str, List[str]]]]) -> str:
    """The security scheme a `security` list requires, or "" when none is. An empty requirement
    (`{}`) makes authentication optional, so the tool does not stop to ask for a credential."""
    if not security or any(not requirement for requirement in security):
        return ""
    return next(iter(security[0]), "")


class OperationParser:
    """Reads an Operation (a model, a dict or its JSON) into ApiParameters and a return value.
    `preserve_property_names` keeps the spec's names (`userId`) instead of snake_case."""

    def __init__(self, operation: Union[Operation, Dict[str, Any], str], should_parse: bool = True, *,
                 preserve_property_names: bool = False) -> None:
        if isinstance(operation, dict):
            operation = Operation.model_validate(operation)
        elif isinstance(operation, str):
            operation = Operation.model_validate_json(operation)
        self._operation = operation
        self._preserve_property_names = preserve_property_names
        self._params: List[ApiParameter] = []
        self._return_value: Optional[ApiParameter] = None
        if should_parse:
            self._process_operation_parameters()
            self._process_request_body()
            self._process_return_value()
            self._dedupe_param_names()

    @classmethod
    def load(cls, operation: Union[Operation, Dict[str, Any]], params: List[ApiParameter],
             return_value: Optional[ApiParameter] = None, *, preserve_property_names: bool = False) -> OperationParser:
        """A parser over parameters already worked out (by OpenApiSpecParser)."""
        parser = cls(operation, should_parse=False, preserve_property_names=preserve_property_names)
        parser._params = params
        parser._return_value = return_value
        return parser

    def _py_name(self, original_name: str) -> str:
        """The spec's own name when preserving names; "" lets ApiParameter snake_case it."""
        return rename_python_keywords(original_name) if self._preserve_property_names else ""

    def _process_operation_parameters(self) -> None:
        for param in self._operation.parameters or []:
            if not isinstance(param, Parameter):
                continue  # an unresolved $ref: skipped, so one bad pointer does not sink the toolset
            schema = schema_of(param.schema_, context=f"operation parameter {param.name!r}")
            if not schema.description:
                schema.description = param.description or ""
            # A path parameter is always required: the URL cannot be built without it.
            required = param.in_ == openapi_models.ParameterInType.path or bool(param.required)
            self._params.append(ApiParameter(
                original_name=param.name, param_location=param.in_ or "", param_schema=schema,
                description=param.description or "", required=required, py_name=self._py_name(param.name)))

    def _process_request_body(self) -> None:
        body = self._operation.requestBody
        if isinstance(body, Reference):
            raise ValueError(f"Request body contains unresolved reference {body.ref!r}")
        if body is None or not body.content:
            return
        media_type, media = next(iter(body.content.items()))  # the first media type only
        schema = schema_of(media.schema_, context=f"request body media type {media_type!r}")
        description = body.description or ""
        if schema.type == "object":  # each property is a parameter of its own
            required = set(schema.required or [])
            for name, prop in (schema.properties or {}).items():
                prop_schema = schema_of(prop, context=f"request body property {name!r}")
                self._params.append(ApiParameter(
                    original_name=name, param_location="body", param_schema=prop_schema,
                    description=prop_schema.description or "", required=name in required,
                    py_name=self._py_name(name)))
            return
        if schema.type == "array":
            name = "array"
        else:  # a scalar keeps an empty name (called by its location); a composed one is `body`
            name = "body" if (schema.oneOf or schema.anyOf or schema.allOf or not schema.type) else ""
        self._params.append(ApiParameter(original_name=name, param_location="body", param_schema=schema,
                                         description=description))

    def _dedupe_param_names(self) -> None:
        """The second `id` becomes `id_0`, the third `id_1`."""
        seen: dict[str, int] = {}
        for param in self._params:
            name = param.py_name or ""
            if name in seen:
                seen[name] += 1
                param.py_name = f"{name}_{seen[name] - 1}"
            else:
                seen[name] = 0

    def _process_return_value(self) -> None:
        """The schema of the lowest 2xx response's first media type (an empty schema if none)."""
        responses = self._operation.responses or {}
        schema = Schema()
        codes = [code for code in responses if code.startswith("2")]
        if codes:
            response = responses[min(codes)]
            if isinstance(response, Reference):
                raise ValueError(f"Response contains unresolved reference {response.ref!r}")
            if not isinstance(response, Response):
                raise TypeError(f"Unsupported response {type(response)!r}")
            for mime_type, media in (response.content or {}).items():
                if media.schema_ is not None:
                    schema = schema_of(media.schema_, context=f"response media type {mime_type!r}")
                    break
        self._return_value = ApiParameter(original_name="", param_location="", param_schema=schema)

    def get_function_name(self) -> str:
        if not self._operation.operationId:
            raise ValueError("Operation ID is missing")
        return to_snake_case(self._operation.operationId)[:MAX_TOOL_NAME_LENGTH]

    def get_return_type_hint(self) -> str:
        return self.get_return_value().type_hint or ""

    def get_return_type_value(self) -> Any:
        return self.get_return_value().type_value

    def get_parameters(self) -> List[ApiParameter]:
        return self._params

    def get_return_value(self) -> ApiParameter:
        if self._return_value is None:
            raise RuntimeError("Operation return value has not been parsed")
        return self._return_value

    def get_auth_scheme_name(self) -> str:
        return required_scheme_name(self._operation.security)

    def get_pydoc_string(self) -> str:
        args = "\n".join(f"        {param.to_pydoc_string()}" for param in self._params)
        summary = self._operation.summary or self._operation.description or ""
        returns = PydocHelper.generate_return_doc(self._operation.responses or {})
        return dedent(f'''
        """{summary}

        Args:
{args}

        {returns}
        """
            ''').strip()

    def get_json_schema(self) -> Dict[str, Any]:
        """The arguments' JSON schema: what the model is told to send."""
        return {
            "properties": {p.py_name: jsonable_encoder(p.param_schema, exclude_none=True) for p in self._params},
            "required": [p.py_name for p in self._params if p.required],
            "title": f"{self._operation.operationId or 'unnamed'}_Arguments",
            "type": "object",
        }

    def get_signature_parameters(self) -> List[inspect.Parameter]:
        return [inspect.Parameter(p.py_name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=p.type_value)
                for p in self._params]

    def get_annotations(self) -> Dict[str, Any]:
        annotations: Dict[str, Any] = {p.py_name: p.type_value for p in self._params}
        annotations["return"] = self.get_return_type_value()
        return annotations
