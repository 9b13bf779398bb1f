"""Checks on identifiers, run before anything is written."""

from __future__ import annotations

import re
from types import UnionType
from typing import Any, Union, get_args, get_origin

from domain.errors import InvalidArgumentError

APP_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,127}$")
# User and session ids come from other systems (emails, uuids, …): allow their usual
# characters but nothing that could be a path, a control character or surrounding space.
EXTERNAL_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:@+=-]{0,255}$")
# User ids may also name a group, "group/user123", as ADK allows: parts of that form joined by
# "/", so no part is empty, "." or "..". No id ever becomes a file path (artifact files are
# named by their hash); this keeps even a careless future path join inside its directory.


# Segments an id cannot contain between slashes: they would shift the fields of an artifact URI.
RESERVED_SEGMENTS = frozenset({"apps", "users", "sessions", "artifacts", "versions"})


def path_segment_problem(value: object, field_name: str) -> str | None:
    """google-adk 2.13's sentence (artifact_util.validate_path_segment) for an id that could change
    a path built from it: empty, with a NUL byte, absolute or drive-qualified, with a `.`/`..`
    segment, or with a reserved segment between slashes; None when ADK lets it through."""
    if not isinstance(value, str):
        return None  # not text: nothing a path could be built from (ADK lets such values through too)
    if not value.strip():
        return f"{field_name} must not be empty."
    if "\x00" in value:
        return f"{field_name} must not contain null bytes."
    if value.startswith(("/", "\\")):
        return f"{field_name} {value!r} must not be an absolute path or start with a slash."
    if re.match(r"[A-Za-z]:", value):
        return f"{field_name} {value!r} must not be drive-qualified."
    segments = value.replace("\\", "/").split("/")
    if value in (".", "..") or ".." in segments:
        return f"{field_name} {value!r} must not contain traversal segments."
    if len(segments) > 1 and RESERVED_SEGMENTS & {s.casefold() for s in segments}:
        return f"{field_name} {value!r} must not contain reserved path segments."
    return None


def _refuse(field_name: str, value: object, ok: bool, advice: str) -> None:
    """Refuses what google-adk 2.13 refuses, in its words (its tests match on them), and what
    Chronicle's own, stricter rule refuses (`ok` False), ADK's sentence first where both do."""
    adk = path_segment_problem(value, field_name)
    if adk or not ok:
        raise InvalidArgumentError(adk if ok else f"{adk} {advice}" if adk else advice)


def check_app_name(app_name: object) -> str:
    ok = isinstance(app_name, str) and bool(APP_NAME.fullmatch(app_name))
    _refuse("app_name", app_name, ok, "" if ok else (
        f"Invalid app name {app_name!r}: use a letter followed by letters, digits, '_', '.' or '-' "
        "(at most 128 characters)."))
    return app_name


def check_external_id(kind: str, value: object) -> str:
    ok = isinstance(value, str) and bool(EXTERNAL_ID.fullmatch(value))
    _refuse(kind.replace(" ", "_"), value, ok, "" if ok else (
        f"Invalid {kind} {value!r}: use letters, digits and '_ . : @ + = -' "
        "(not starting with a symbol other than '_', at most 256 characters)."))
    return value


def check_user_id(value: object) -> str:
    parts = value.split("/") if isinstance(value, str) and len(value) <= 256 else [None]
    ok = all(isinstance(p, str) and EXTERNAL_ID.fullmatch(p) for p in parts)
    _refuse("user_id", value, ok, "" if ok else (
        f"Invalid user id {value!r}: use letters, digits and '_ . : @ + = -', parts joined by '/' "
        "(each starting with a letter, digit or '_'), at most 256 characters."))
    return value


def check_ids(app_name: object, user_id: object, session_id: object | None = None) -> None:
    check_app_name(app_name)
    check_user_id(user_id)
    if session_id is not None:
        check_external_id("session id", session_id)


# -- the limits of what a store keeps ------------------------------------------------------
#
# The same on every store, checked before anything is written (docs/guide.md, "Limits"):
# PostgreSQL's text and jsonb cannot hold U+0000 and no store can encode a lone surrogate, so
# both are refused in every string rather than accepted by one store and refused by another;
# integers are 64-bit signed, what PostgreSQL's and SQLite's JSON functions and most JSON readers
# keep exactly (10**5000 cannot even be written as JSON by Python); NaN and ±Infinity have no
# JSON form (pydantic would silently write null); nesting is bounded so that no reader, ours or
# a driver's, runs out of recursion on a stored value.

MAX_DEPTH = 100  # levels of objects and lists in a value (a state value, tool arguments, metadata)
MIN_INT, MAX_INT = -(2**63), 2**63 - 1
MAX_ID_LENGTH = 256
_BAD_CHARS = re.compile("[\x00\ud800-\udfff]")  # NUL and lone surrogates
_CONTROL = re.compile("[\x00-\x1f\x7f]")
_PLAIN_ID = re.compile(r"[!-~](?:[ -~]{0,%d}[!-~])?\Z" % (MAX_ID_LENGTH - 2))


class _Refused(Exception):
    """Why a value cannot be stored, and where inside it."""

    def __init__(self, reason: str, path: str = ""):
        self.reason, self.path = reason, path


def check_storable(value: object, what: str, *, models: bool = False, frame: int = 0) -> None:
    """Refuse a value every store cannot keep and give back exactly: nesting deeper than
    MAX_DEPTH, integers outside 64-bit signed, NaN or ±Infinity, non-string keys, strings with
    NUL or a lone surrogate. ``models``: pydantic models, bytes and enums inside are walked or
    allowed (an event's fields); otherwise only plain JSON values are (state). ``frame``: levels
    of the value's own structure that do not count (an event's, around the values it carries)."""
    try:
        _walk(value, -frame, models)
    except _Refused as refused:
        path = refused.path if len(refused.path) <= 120 else refused.path[:120] + "…"
        raise InvalidArgumentError(
            f"{what}{path} cannot be stored: {refused.reason}. Every store keeps JSON with "
            f"at most {MAX_DEPTH} levels of nesting, 64-bit integers, finite numbers and text "
            "without NUL characters or lone surrogates (see Limits in docs/guide.md)."
        ) from None
    except RecursionError:
        raise InvalidArgumentError(f"{what} is nested too deeply (or refers to itself) to be stored.") from None


def _walk(value: object, depth: int, models: bool) -> None:
    """One pass over a value. Scalars and empty containers inside a container are checked inline
    (a call per value would double the cost of an append's check); where a value is refused is
    worked out only then, from the loop variable the exception leaves behind."""
    kind = type(value)
    if kind is dict or kind is list or kind is tuple or (models and kind in _MODEL_TYPES):
        if depth >= MAX_DEPTH:
            raise _Refused(f"it nests deeper than {MAX_DEPTH} levels")
        if kind is dict:
            _walk_dict(value, depth, models)  # type: ignore[arg-type]
        elif kind in _MODEL_TYPES:
            _walk_model(value, depth)
        else:
            _walk_items(value, depth, models)  # type: ignore[arg-type]
    elif _scalar_refusal(value):
        return
    elif models and _is_model(value):
        _MODEL_TYPES.add(kind)
        _walk(value, depth, models)
    elif isinstance(value, dict):
        _walk(dict(value), depth, models)  # type: ignore[arg-type]
    elif isinstance(value, (list, tuple)) or (models and isinstance(value, (set, frozenset))):
        if depth >= MAX_DEPTH:
            raise _Refused(f"it nests deeper than {MAX_DEPTH} levels")
        _walk_items(value, depth, models)  # type: ignore[arg-type]
    elif isinstance(value, str):  # subclasses, such as genai's enums: their plain value
        _walk(str.__str__(value), depth, models)
    elif isinstance(value, (int, float)):
        _walk(int(value) if isinstance(value, int) else float(value), depth, models)
    elif models and isinstance(value, (bytes, bytearray)):
        return  # stored as base64 text
    elif not models:
        raise _Refused(
            f"{type(value).__name__} is not a JSON value (store plain dicts, lists, strings, numbers, "
            "booleans or None)"
        )


_NONE = id(None)
_MODEL_TYPES: set[type] = set()  # pydantic model classes met so far (isinstance on them is slow)


def _is_model(value: object) -> bool:
    # pydantic is imported here, not at the top: a caller walking models has imported it already,
    # and the command line's reads (which import this module through domain.state) never need it.
    from pydantic import BaseModel

    return isinstance(value, BaseModel)


def _plain(item: object, kind: type) -> bool:
    """Whether an item needs no walk of its own (checking a string on the way)."""
    if kind is str:
        if not item.isascii() or "\x00" in item:  # type: ignore[attr-defined]
            _check_text(item)  # type: ignore[arg-type]
        return True
    return (
        item is None or kind is bool or (kind is int and MIN_INT <= item <= MAX_INT)  # type: ignore[operator]
        or (kind is float and item - item == 0.0)  # type: ignore[operator]
        or ((kind is dict or kind is list) and not item)
    )


def _walk_dict(value: dict[Any, Any], depth: int, models: bool) -> None:
    key: Any = None
    try:
        for key, item in value.items():
            if type(key) is not str:
                raise _Refused(f"the key {key!r} is not a string")
            if not key.isascii() or "\x00" in key:
                _check_text(key, "the key")
            if not _plain(item, type(item)):
                _walk(item, depth + 1, models)
    except _Refused as refused:
        refused.path = f"[{key!r}]{refused.path}"
        raise


def _walk_items(value: Any, depth: int, models: bool) -> None:
    index = -1
    try:
        for index, item in enumerate(value):
            kind = type(item)
            if models and kind in _MODEL_TYPES:  # a list of models (an event's parts): walked directly
                if depth + 1 >= MAX_DEPTH:
                    raise _Refused(f"it nests deeper than {MAX_DEPTH} levels")
                _walk_model(item, depth + 1)
            elif not _plain(item, kind):
                _walk(item, depth + 1, models)
    except _Refused as refused:
        refused.path = f"[{index}]{refused.path}"
        raise


def _walk_model(value: Any, depth: int) -> None:
    name = ""
    fields = value.__dict__
    factories, typed = _MODEL_FIELDS.get(type(value)) or _model_fields(type(value))
    set_fields = value.model_fields_set
    try:
        for name in set_fields | factories if factories else set_fields:
            item = fields.get(name)
            kind = type(item)
            if kind is str:  # the most common field, checked inline (as _plain does)
                if not item.isascii() or "\x00" in item:
                    _check_text(item)
                continue
            if item is None or kind is bool or ((kind is dict or kind is list) and not item):
                continue
            if kind in _MODEL_TYPES:  # a model in a model: walked directly (what _walk would do)
                if depth + 1 >= MAX_DEPTH:
                    raise _Refused(f"it nests deeper than {MAX_DEPTH} levels")
                _walk_model(item, depth + 1)
                continue
            if _plain(item, kind):
                continue
            if name in typed and _NONE in map(id, item.values() if kind is dict else item):  # (is None: no __eq__ calls)
                # pydantic writes a None inside a typed list or dict without a warning, and
                # the stored event could never be read back.
                raise _Refused("it holds None where its type allows none")
            _walk(item, depth + 1, True)
    except _Refused as refused:
        refused.path = f".{name}{refused.path}"
        raise


_MODEL_FIELDS: dict[type, tuple[frozenset[str], frozenset[str]]] = {}


def _model_fields(kind: type) -> tuple[frozenset[str], frozenset[str]]:
    """Of a pydantic model class: the fields that can hold anything but their default besides
    those set (pydantic records every assignment), that is those whose default is made per
    instance (a dict, a model), which can be changed in place (the rest are still their
    immutable defaults); and the fields that are lists, sets or dicts of a type that is not
    Optional or Any."""
    found = _MODEL_FIELDS.get(kind)
    if found is None:
        fields = getattr(kind, "model_fields", {})
        found = _MODEL_FIELDS[kind] = (
            frozenset(n for n, f in fields.items() if f.default_factory is not None),
            frozenset(n for n, f in fields.items() if _items_typed(f.annotation)),
        )
    return found


def _items_typed(annotation: Any) -> bool:
    args = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) in (Union, UnionType) and len(args) == 1:
        return _items_typed(args[0])  # Optional[list[X]]
    origin = get_origin(annotation)
    if origin not in (list, set, frozenset, dict):
        return False
    item = get_args(annotation)[-1] if get_args(annotation) else Any
    if item is Any or item is object:
        return False
    item_args = get_args(item)
    return not (get_origin(item) in (Union, UnionType) and type(None) in item_args)


def _scalar_refusal(value: object) -> bool:
    """True for a plain scalar that may be stored; raises for one that may not; False for the rest."""
    kind = type(value)
    if kind is str:
        if not value.isascii() or "\x00" in value:  # type: ignore[union-attr]
            _check_text(value)  # type: ignore[arg-type]
        return True
    if kind is int:
        if not MIN_INT <= value <= MAX_INT:  # type: ignore[operator]
            raise _Refused(f"the integer {_short_int(value)} is outside the 64-bit signed range")  # type: ignore[arg-type]
        return True
    if kind is float:
        if value - value != 0.0:  # type: ignore[operator]  # NaN and ±Infinity
            raise _Refused(f"{value!r} is not a finite number")
        return True
    return value is None or kind is bool


def _check_text(text: str, what: str = "it") -> None:
    bad = _BAD_CHARS.search(text)
    if bad is not None:
        char = bad.group()
        shown = f"{what} {text[:40]!r}" if what != "it" else what
        raise _Refused(f"{shown} contains " + ("a NUL character" if char == "\x00" else f"a lone surrogate ({char!r})"))


def _short_int(value: int) -> str:
    digits = len(str(abs(value))) if abs(value) < 10**4000 else None
    return f"with {digits} digits" if digits else "with thousands of digits"


def check_event_id(value: object, kind: str = "event id", *, blank: bool = False) -> str:
    """An event's (or invocation's) id: text of at most MAX_ID_LENGTH characters, without control
    characters or surrounding space; not blank unless ``blank``. A blank event id would let the
    store take a second, different event for a duplicate of the first."""
    if type(value) is str and (_PLAIN_ID.match(value) or (blank and not value)):
        return value  # the usual id: printable ASCII, no space around it, short enough
    if (
        not isinstance(value, str)
        or len(value) > MAX_ID_LENGTH
        or (not value.strip() and not (blank and value == ""))
        or value != value.strip()
        or _CONTROL.search(value)
        or (not value.isascii() and _BAD_CHARS.search(value))
    ):
        shown = value if not isinstance(value, str) or len(value) <= 40 else value[:40] + "…"
        raise InvalidArgumentError(
            f"Invalid {kind} {shown!r}: use {'' if blank else 'non-blank '}text of at most {MAX_ID_LENGTH} "
            "characters, without control characters or spaces around it (a new Event gets one of its own)."
        )
    return value
