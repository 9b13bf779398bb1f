"""An OpenAPI spec (a dict) as a list of ParsedOperation, one per path and method: `$ref`s resolved,
schema types a validator would refuse dropped, path-level parameters merged, security resolved
(google.adk.tools.openapi_tool.openapi_spec_parser.openapi_spec_parser)."""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional

from pydantic import BaseModel, field_validator

from runtime.auth.auth_credential import AuthCredential
from runtime.auth.auth_schemes import as_auth_scheme
from runtime.tools.openapi_tool.auth.auth_helpers import dict_to_auth_scheme
from runtime.tools.openapi_tool.common.common import ApiParameter, to_snake_case
from runtime.tools.openapi_tool.models import openapi_models
from runtime.tools.openapi_tool.openapi_spec_parser.operation_parser import OperationParser, required_scheme_name

_SCHEMA_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_SCHEMA_CONTAINERS = frozenset({"schema", "schemas"})
_METHODS = ("get", "post", "put", "delete", "patch", "head", "options", "trace")


class OperationEndpoint(BaseModel):
    base_url: str
    path: str
    method: str


class ParsedOperation(BaseModel):
    name: str
    description: str
    endpoint: OperationEndpoint
    operation: openapi_models.Operation
    parameters: List[ApiParameter]
    return_value: ApiParameter
    auth_scheme: Optional[Any] = None
    """The operation's security scheme (FastAPI's model for it), if it needs one."""
    auth_credential: Optional[AuthCredential] = None
    additional_context: Optional[Any] = None

    @field_validator("auth_scheme", mode="before")
    @classmethod
    def _scheme_model(cls, value: Any) -> Any:
        if value is None:
            return None
        return dict_to_auth_scheme(value) if isinstance(value, dict) else as_auth_scheme(value)


class OpenApiSpecParser:
    def __init__(self, *, preserve_property_names: bool = False):
        self._preserve_property_names = preserve_property_names

    def parse(self, openapi_spec_dict: Dict[str, Any]) -> List[ParsedOperation]:
        spec = self._resolve_references(openapi_spec_dict)
        spec = self._sanitize_schema_types(spec)
        return self._collect_operations(spec)

    def _sanitize_schema_types(self, openapi_spec: Dict[str, Any]) -> Dict[str, Any]:
        """A copy where every schema `type` is a JSON Schema type (lower-cased); others, such as
        `Any` from some generators, are dropped, which leaves the value unconstrained."""
        spec = copy.deepcopy(openapi_spec)
        _sanitize(spec, in_schema=False)
        return spec

    def _collect_operations(self, openapi_spec: Dict[str, Any]) -> List[ParsedOperation]:
        servers = openapi_spec.get("servers") or []
        base_url = servers[0].get("url", "") if servers else ""
        global_scheme = required_scheme_name(openapi_spec.get("security"))
        schemes = openapi_spec.get("components", {}).get("securitySchemes", {})
        operations = []
        for path, path_item in openapi_spec.get("paths", {}).items():
            for method in _METHODS:
                if path_item is None or path_item.get(method) is None:
                    continue
                operation_dict = path_item[method]
                operation_dict["parameters"] = _merged_parameters(operation_dict.get("parameters", []),
                                                                  path_item.get("parameters", []))
                operation_dict.setdefault("operationId", to_snake_case(f"{path}_{method}"))
                operation = openapi_models.Operation.model_validate(operation_dict)
                parser = OperationParser(operation, preserve_property_names=self._preserve_property_names)
                # An operation's own `security` (even an empty one) overrides the global one.
                scheme_name = parser.get_auth_scheme_name()
                if not scheme_name and operation.security is None:
                    scheme_name = global_scheme
                operations.append(ParsedOperation(
                    name=parser.get_function_name(),
                    description=operation.description or operation.summary or "",
                    endpoint=OperationEndpoint(base_url=base_url, path=path, method=method),
                    operation=operation,
                    parameters=parser.get_parameters(),
                    return_value=parser.get_return_value(),
                    auth_scheme=schemes.get(scheme_name) if scheme_name else None,
                    auth_credential=None,
                    additional_context={},
                ))
        return operations

    def _resolve_references(self, openapi_spec: Dict[str, Any]) -> Dict[str, Any]:
        """A copy with every local `$ref` replaced by what it points to. A reference met again
        inside its own expansion (a recursive schema) is cut: the object without its `$ref`."""
        spec = copy.deepcopy(openapi_spec)
        resolved: dict[str, Any] = {}

        def target(ref: str) -> Any:
            parts = ref.split("/")
            if parts[0] != "#":
                raise ValueError(f"External references not supported: {ref}")
            node: Any = spec
            for part in parts[1:]:
                if not isinstance(node, dict) or part not in node:
                    return None
                node = node[part]
            return node

        def resolve(obj: Any, seen: set[str]) -> Any:
            if isinstance(obj, list):
                return [resolve(item, seen) for item in obj]
            if not isinstance(obj, dict):
                return obj
            ref = obj.get("$ref")
            if not isinstance(ref, str):
                return {key: resolve(value, seen) for key, value in obj.items()}
            if ref in resolved:
                return copy.deepcopy(resolved[ref])
            if ref in seen:
                return {k: v for k, v in obj.items() if k != "$ref"}
            seen.add(ref)
            value = target(ref)
            if value is None:
                return obj
            resolved[ref] = resolve(value, seen)
            return copy.deepcopy(resolved[ref])

        return resolve(spec, set())


def _merged_parameters(own: list, inherited: list) -> list:
    """The operation's parameters, then the path's that it does not override (same name and `in`)."""
    overridden = {(p["name"], p.get("in")) for p in own if isinstance(p, dict) and "name" in p}
    return own + [p for p in inherited
                  if not isinstance(p, dict) or (p.get("name"), p.get("in")) not in overridden]


def _sanitize(obj: Any, *, in_schema: bool) -> None:
    if isinstance(obj, list):
        for item in obj:
            _sanitize(item, in_schema=in_schema)
        return
    if not isinstance(obj, dict):
        return
    if in_schema and "type" in obj:
        kind = obj["type"]
        if isinstance(kind, str) and kind.lower() in _SCHEMA_TYPES:
            obj["type"] = kind.lower()
        elif isinstance(kind, list):
            kinds = list(dict.fromkeys(k.lower() for k in kind if isinstance(k, str) and k.lower() in _SCHEMA_TYPES))
            if kinds:
                obj["type"] = kinds
            else:
                del obj["type"]
        elif isinstance(kind, str):
            del obj["type"]
    for key, value in obj.items():
        _sanitize(value, in_schema=in_schema or key in _SCHEMA_CONTAINERS)
