"""Function declarations inferred from a Python function: its signature, type hints and docstring,
as google-adk 2.13 writes them."""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import re
import types as pytypes
import typing
from typing import Any, Callable, Iterable, Literal, Optional, Union, get_args, get_origin

from google.genai import types
from pydantic import BaseModel, ValidationError, create_model
from pydantic.errors import PydanticSchemaGenerationError, PydanticUserError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

# Parameters the runtime fills in; the model never sees them.
RUNTIME_PARAMS = frozenset({"tool_context", "input_stream"})

_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Returns|Return|Yields|Raises|Examples?|Notes?|Attributes)\s*:\s*$"
)
_ARG_LINE = re.compile(r"^\s*\*{0,2}(\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")


def function_name(func: Callable[..., Any]) -> str:
    inner = getattr(func, "func", None)  # functools.partial
    name = getattr(func, "__name__", None) or (getattr(inner, "__name__", None) if inner else None)
    return name or type(func).__name__


def build_function_declaration(
    func: Callable[..., Any], *, name: Optional[str] = None, ignore: Iterable[str] = RUNTIME_PARAMS
) -> types.FunctionDeclaration:
    """Declares `func` to a model as google-adk 2.13 does (for the Gemini API): the cleaned
    docstring is the description, and the parameters are the JSON schema pydantic writes for a
    model made of them (`<function>Params`; defaults make a parameter optional). An Args section
    stays in the description only: 2.13 gives parameters no descriptions of their own."""
    if isinstance(func, type) and issubclass(func, BaseModel):
        doc = inspect.cleandoc(func.__doc__) if func.__doc__ else None
        return types.FunctionDeclaration(name=name or func.__name__, description=doc,
                                         parameters_json_schema=func.model_json_schema())
    declaration = types.FunctionDeclaration(name=name or function_name(func), description=callable_doc(func) or None)
    fields = _pydantic_fields(func, set(ignore))
    if fields:
        try:
            model = create_model(f"{function_name(func)}Params", **fields)
            declaration.parameters_json_schema = model.model_json_schema()
        except (PydanticSchemaGenerationError, PydanticUserError, TypeError):
            # A type pydantic cannot describe (google-adk raises here): declare it Chronicle's way.
            declaration.parameters = _typed_parameters(func, ignore)
    return declaration


def callable_doc(func: Any) -> str:
    """The cleaned docstring of a function, a partial (its function's) or a callable object (its class's,
    else its __call__'s)."""
    if isinstance(func, functools.partial) and func.__doc__ == functools.partial.__doc__:
        return callable_doc(func.func)
    doc = inspect.cleandoc(func.__doc__) if isinstance(func, type) and isinstance(func.__doc__, str) else (
        "" if isinstance(func, type) else inspect.getdoc(func) or "")
    if not doc and not inspect.isroutine(func) and not isinstance(func, type):
        call = getattr(type(func), "__call__", None)
        doc = inspect.getdoc(call) or "" if call is not None else ""
        if doc == inspect.getdoc(type.__call__):
            doc = ""
    return doc


def _pydantic_fields(func: Callable[..., Any], ignore: set[str]) -> dict[str, Any]:
    """The parameters the model fills, as pydantic field definitions ({} when a hint cannot be
    resolved: then, as in google-adk, the function is declared without parameters)."""
    hints = _type_hints(func)
    fields: dict[str, Any] = {}
    for param in inspect.signature(func).parameters.values():
        if param.name in ignore or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(param.name, param.annotation)
        if annotation is inspect.Parameter.empty:
            annotation = Any
        if isinstance(annotation, (str, typing.ForwardRef)):
            return {}
        default = PydanticUndefined if param.default is inspect.Parameter.empty else param.default
        if get_origin(annotation) is typing.Annotated:
            info = FieldInfo.from_annotation(annotation)
            info.alias = info.validation_alias = info.serialization_alias = None
            info.default, info.default_factory = default, None
            fields[param.name] = (info.annotation if info.annotation is not None else Any, info)
        else:
            fields[param.name] = (annotation, default)
    return fields


def _typed_parameters(func: Callable[..., Any], ignore: Iterable[str]) -> Optional[types.Schema]:
    """Parameters as a Gemini Schema from the type hints, with descriptions from an Args section."""
    ignore = set(ignore)
    signature = inspect.signature(func)
    hints = _type_hints(func)
    param_docs = parse_arg_docs(inspect.cleandoc(inspect.getdoc(func) or ""))
    properties: dict[str, types.Schema] = {}
    required: list[str] = []
    for param in signature.parameters.values():
        if param.name in ignore or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(param.name, param.annotation)
        if annotation is inspect.Parameter.empty and param.default is not inspect.Parameter.empty:
            annotation = type(param.default) if param.default is not None else inspect.Parameter.empty
        schema = schema_for(annotation)
        if param.name in param_docs and not schema.description:
            schema.description = param_docs[param.name]
        if param.default is not inspect.Parameter.empty and param.default is not None:
            schema.default = _jsonable(param.default)
        properties[param.name] = schema
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
    if not properties:
        return None
    return types.Schema(type=types.Type.OBJECT, properties=properties, required=required or None)


def schema_for(annotation: Any) -> types.Schema:
    """A Gemini Schema for a Python type hint."""
    if annotation is inspect.Parameter.empty or annotation is Any or annotation is object:
        return types.Schema()
    origin = get_origin(annotation)
    args = get_args(annotation)

    if origin is typing.Annotated:
        return schema_for(args[0])
    if origin is Union or origin is pytypes.UnionType:
        options = [a for a in args if a is not type(None)]
        nullable = len(options) < len(args)
        if len(options) == 1:
            schema = schema_for(options[0])
        else:
            schema = types.Schema(any_of=[schema_for(a) for a in options])
        if nullable:
            schema.nullable = True
        return schema
    if origin is Literal:
        values = list(args)
        if all(isinstance(v, str) for v in values):
            return types.Schema(type=types.Type.STRING, enum=values)
        return types.Schema(type=_scalar_type(type(values[0])), description=f"One of {values}")
    if annotation is type(None):
        return types.Schema(nullable=True)

    scalar = _scalar_type(annotation)
    if scalar is not None:
        return types.Schema(type=scalar)
    if annotation in (list, tuple, set, frozenset) or origin in (list, tuple, set, frozenset) or (
        origin is not None and _is_subclass(origin, typing.Sequence) and origin is not str
    ):
        items = schema_for(args[0]) if args and args[0] is not Ellipsis else types.Schema()
        return types.Schema(type=types.Type.ARRAY, items=items)
    if annotation is dict or origin is dict or (origin is not None and _is_subclass(origin, typing.Mapping)):
        return types.Schema(type=types.Type.OBJECT)
    if _is_subclass(annotation, enum.Enum):
        return types.Schema(type=types.Type.STRING, enum=[str(m.value) for m in annotation])
    if _is_subclass(annotation, BaseModel):
        return _model_schema(annotation)
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        return _dataclass_schema(annotation)
    return types.Schema(type=types.Type.OBJECT)


def parse_arg_docs(doc: str) -> dict[str, str]:
    """Per-parameter descriptions from a Google-style `Args:` section."""
    result: dict[str, str] = {}
    in_args = False
    current: Optional[str] = None
    base_indent: Optional[int] = None
    for line in doc.splitlines():
        section = _SECTION.match(line)
        if section:
            in_args = section.group(1) in ("Args", "Arguments", "Parameters", "Params")
            current, base_indent = None, None
            continue
        if not in_args or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        match = _ARG_LINE.match(line)
        if match and (base_indent is None or indent <= base_indent):
            base_indent = indent
            current = match.group(1)
            result[current] = match.group(3).strip()
        elif current is not None:
            result[current] = (result[current] + " " + line.strip()).strip()
    return result


# -- converting the model's JSON arguments back into the annotated Python types ---------------


def convert_argument(annotation: Any, value: Any) -> Any:
    """Turns a JSON value into the parameter's type where that is unambiguous (models, enums)."""
    if value is None or annotation is inspect.Parameter.empty:
        return value
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is typing.Annotated:
        return convert_argument(args[0], value)
    if origin is Union or origin is pytypes.UnionType:
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return convert_argument(options[0], value)
        if isinstance(value, dict):  # a union of models: the first the value is valid for
            for option in options:
                if _is_subclass(option, BaseModel):
                    try:
                        return option.model_validate(value)
                    except ValidationError:
                        continue
        return value
    if _is_subclass(annotation, BaseModel) and isinstance(value, dict):
        return annotation.model_validate(value)
    if _is_subclass(annotation, enum.Enum) and not isinstance(value, annotation):
        try:
            return annotation(value)
        except ValueError:
            return value
    if origin in (list, set, tuple, frozenset) and args and isinstance(value, list):
        converted = [convert_argument(args[0], v) for v in value]
        return origin(converted) if origin is not list else converted
    return value


def _type_hints(func: Callable[..., Any]) -> dict[str, Any]:
    target = func
    if not (inspect.isfunction(target) or inspect.ismethod(target)):
        target = getattr(func, "func", None) or getattr(func, "__call__", func)
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception:  # noqa: BLE001 - unresolvable forward references: fall back to raw annotations
        return {}


def _scalar_type(annotation: Any) -> Optional[types.Type]:
    if annotation is str:
        return types.Type.STRING
    if annotation is bool:
        return types.Type.BOOLEAN
    if annotation is int:
        return types.Type.INTEGER
    if annotation is float:
        return types.Type.NUMBER
    return None


def _is_subclass(candidate: Any, parent: Any) -> bool:
    try:
        return isinstance(candidate, type) and issubclass(candidate, parent)
    except TypeError:
        return False


def _model_schema(model: type[BaseModel]) -> types.Schema:
    properties = {}
    required = []
    for field_name, field in model.model_fields.items():
        schema = schema_for(field.annotation)
        if field.description:
            schema.description = field.description
        properties[field_name] = schema
        if field.is_required():
            required.append(field_name)
    return types.Schema(
        type=types.Type.OBJECT,
        properties=properties or None,
        required=required or None,
        description=inspect.cleandoc(model.__doc__) if model.__doc__ and model.__doc__ != BaseModel.__doc__ else None,
    )


def _dataclass_schema(cls: type) -> types.Schema:
    hints = _type_hints(cls)
    properties = {}
    required = []
    for field in dataclasses.fields(cls):
        properties[field.name] = schema_for(hints.get(field.name, field.type))
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            required.append(field.name)
    return types.Schema(type=types.Type.OBJECT, properties=properties or None, required=required or None)


def _jsonable(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (str, int, float, bool, list, dict)):
        return value
    return str(value)
