"""The user's message as a node's input. google-adk 2.13 hands the nodes after START the message
itself (a `types.Content`); a typed parameter or an input_schema takes what it wants from it: a
`str` its text, a `Content` (or `Any`) the message, anything else the text parsed as JSON (the
text when it is not JSON)."""

from __future__ import annotations

import json
import types as pytypes
from typing import Annotated, Any, Union, get_args, get_origin

from google.genai import types


def text_of(content: types.Content) -> str:
    """Its text, thoughts left out (ADK's extract_text_from_content)."""
    return "".join(p.text for p in content.parts or [] if p.text and not p.thought)


def unwrapped(content: types.Content, annotation: Any) -> Any:
    """What a parameter (or schema) of this type gets from the message."""
    if _expects_str(annotation):
        return text_of(content)
    if _accepts_content(annotation):
        return content
    text = text_of(content)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def items_of(content: types.Content, annotation: Any) -> Any:
    """What a parallel worker fans out from the message, its items typed by `annotation` (its
    node's input_schema or `node_input` hint): the text parsed as JSON (a list is its items), or
    the text; the message itself for an item that takes a Content, or a message with more than text."""
    if _bare(annotation) not in (Any, object) and _accepts_content(annotation):
        return content
    if not content.parts or any(p.text is None for p in content.parts):
        return content
    text = text_of(content)
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return text
    return text if not isinstance(parsed, list) and _expects_str(annotation) else parsed


def _bare(annotation: Any) -> Any:
    return get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation


def _is_union(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, pytypes.UnionType)


def _expects_str(annotation: Any) -> bool:
    annotation = _bare(annotation)
    if annotation is str:
        return True
    if _is_union(annotation):
        options = [_bare(a) for a in get_args(annotation)]
        return any(_expects_str(a) for a in options) and all(
            _expects_str(a) or a is type(None) or (isinstance(a, type) and issubclass(a, types.Content))
            for a in options
        )
    return False


def _accepts_content(annotation: Any) -> bool:
    annotation = _bare(annotation)
    if annotation in (Any, object) or (isinstance(annotation, type) and issubclass(annotation, types.Content)):
        return True
    return _is_union(annotation) and any(_accepts_content(a) for a in get_args(annotation))
