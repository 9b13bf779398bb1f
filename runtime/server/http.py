"""JSON in and out, the way ADK's server speaks it, and typed errors as HTTP status codes.

Out: pydantic models as camelCase JSON without nulls (`model_dump(by_alias=True,
exclude_none=True)`), as ADK's routes answer. In: a body that is not JSON is a 400; one that is
JSON but not the shape asked for is a 422 naming the fields, as FastAPI would. Errors are
`{"detail": "..."}`. Every check happens before anything is written."""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any, Optional, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from domain.errors import (
    AlreadyExistsError, ChronicleError, InvalidArgumentError, InvocationNotFoundError, SessionNotFoundError,
    StaleSessionError, StoreError,
)
from runtime.server.app_loader import AppNotFoundError
from runtime.server.auth import Forbidden, Unauthenticated

logger = logging.getLogger("chronicle.server")

Model = TypeVar("Model", bound=BaseModel)



class BodyTooLarge(ChronicleError):
    """The body is over the server's limit (413)."""


class NotFound(ChronicleError):
    """What the path names does not exist (404)."""


class Unprocessable(InvalidArgumentError):
    """A value of the right type that cannot be used, where ADK answers 422."""


# Most specific first: the first class an error is an instance of gives its status.
STATUS_OF_ERROR: list[tuple[type[BaseException], int]] = [
    (Unauthenticated, 401),
    (Forbidden, 403),
    (NotFound, 404),
    (Unprocessable, 422),
    (BodyTooLarge, 413),
    (AppNotFoundError, 404),
    (SessionNotFoundError, 404),
    (InvocationNotFoundError, 404),
    (AlreadyExistsError, 409),
    (StaleSessionError, 409),
    (InvalidArgumentError, 400),
    (StoreError, 503),
    (ChronicleError, 400),
]


def status_of(error: BaseException) -> int:
    if isinstance(error, ValidationError):
        return 422
    return next((status for kind, status in STATUS_OF_ERROR if isinstance(error, kind)), 500)


def error_response(error: BaseException) -> JSONResponse:
    if isinstance(error, HTTPException):
        return JSONResponse({"detail": error.detail}, status_code=error.status_code, headers=error.headers)
    status = status_of(error)
    if status == 500:  # a bug: the client learns that much, the log the rest
        logger.error("Unexpected error", exc_info=error)
        detail = "Internal server error; the server's log has the details."
    elif isinstance(error, ValidationError):
        detail = _validation_message(error)
    else:
        detail = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


def _validation_message(error: ValidationError) -> str:
    problems = [
        f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in error.errors(include_url=False)
    ]
    return "Invalid request: " + "; ".join(problems[:10])


def dump(value: Any) -> Any:
    """A model (or a list of them, or a dataclass) as ADK's JSON: camelCase, without nulls."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, (list, tuple)):
        return [dump(v) for v in value]
    if isinstance(value, dict):
        return {str(k): dump(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: dump(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (set, frozenset)):
        return sorted(dump(v) for v in value)
    if hasattr(value, "hex") and type(value).__name__ == "UUID":
        return str(value)
    return value


def respond(value: Any, status_code: int = 200) -> Response:
    if value is None:
        return Response("null", media_type="application/json", status_code=status_code)
    return JSONResponse(dump(value), status_code=status_code)


MAX_BODY_DEPTH = 200
"""Levels of objects and lists a body may nest: enough for any value a store keeps (domain's
MAX_DEPTH, inside an event's own structure), few enough that no reader runs out of recursion."""


async def json_body(request: Request, *, required: bool = True) -> Any:
    raw = await request.body()
    if not raw.strip():
        if required:
            raise InvalidArgumentError("The request needs a JSON body.")
        return None
    try:
        return _check_depth(json.loads(raw, parse_constant=_no_constant))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InvalidArgumentError(f"The body is not valid JSON: {e}") from None
    except (ValueError, RecursionError) as e:  # an integer of thousands of digits, NaN
        raise InvalidArgumentError(f"The body cannot be read: {str(e).splitlines()[0][:200]}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _check_depth(data: Any) -> Any:
    """Refuses nesting past MAX_BODY_DEPTH (walked without recursion); returns `data`."""
    level, depth = [data], 0
    while level:
        depth += 1
        if depth > MAX_BODY_DEPTH:
            raise InvalidArgumentError(f"The body nests deeper than {MAX_BODY_DEPTH} levels.")
        level = [child for value in level if isinstance(value, (dict, list))
                 for child in (value.values() if isinstance(value, dict) else value)
                 if isinstance(child, (dict, list))]
    return data


async def parse_body(request: Request, model: type[Model], *, required: bool = True) -> Optional[Model]:
    """The body as `model`: 400 if it is not JSON, 422 if it is not that shape."""
    data = await json_body(request, required=required)
    if data is None and not required:
        return None
    if not isinstance(data, dict):
        raise InvalidArgumentError(f"The body must be a JSON object, got {json_kind(data)}.")
    return model.model_validate(data)


def json_kind(value: Any) -> str:
    return {type(None): "null", bool: "a boolean", int: "a number", float: "a number", str: "a string",
            list: "an array"}.get(type(value), type(value).__name__)
