"""Events read back from JSON get the same Content whether or not the fast path built it."""

from __future__ import annotations

import base64
import json

from google.genai import types
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import Event
import pytest
from pydantic import ValidationError

from domain.json_content import plain_content

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=4)
ids = st.text(min_size=1, max_size=12)

text_parts = st.fixed_dictionaries({"text": st.text()}, optional={"thought": st.booleans()})
call_parts = st.fixed_dictionaries(
    {"function_call": st.fixed_dictionaries({"name": ids}, optional={"id": ids, "args": json_objects})}
)
response_parts = st.fixed_dictionaries(
    {"function_response": st.fixed_dictionaries({"name": ids}, optional={"id": ids, "response": json_objects})}
)
plain_parts = text_parts | call_parts | response_parts
# Shapes the fast path must hand to genai's own validation.
other_parts = st.sampled_from(
    [
        {"inline_data": {"mime_type": "image/png", "data": base64.b64encode(b"\x89PNG").decode()}},
        {"functionCall": {"name": "camel"}},
        {"text": "t", "thought_signature": base64.b64encode(b"sig").decode()},
        {"executable_code": {"code": "print(1)", "language": "PYTHON"}},
        {},
    ]
)


def contents(parts):
    return st.fixed_dictionaries(
        {}, optional={"role": st.none() | st.sampled_from(["user", "model"]), "parts": st.lists(parts, max_size=4)}
    )


def _same(a: object, b: object) -> None:
    """Equal, of the same classes, with the same fields marked as set, all the way down."""
    assert type(a) is type(b)
    assert a == b
    if isinstance(a, types._common.BaseModel):
        assert a.model_fields_set == b.model_fields_set  # type: ignore[attr-defined]
        for name in type(a).model_fields:
            _same(getattr(a, name), getattr(b, name))
    elif isinstance(a, list):
        for x, y in zip(a, b):  # type: ignore[call-overload]
            _same(x, y)


def _read_back(content: dict) -> Event:
    return Event.model_validate_json(json.dumps({"author": "model", "content": content}))


@settings(max_examples=300, deadline=None)
@given(contents(plain_parts))
def test_plain_content_is_built_directly_and_equals_genai_validation(content):
    _same(plain_content.validate_json(json.dumps(content)), types.Content.model_validate(content))  # the fast path takes it
    _same(_read_back(content).content, types.Content.model_validate(content))


@settings(max_examples=100, deadline=None)
@given(contents(plain_parts | other_parts))
def test_any_content_reads_back_as_genai_validates_it(content):
    _same(_read_back(content).content, types.Content.model_validate(content))


def test_shapes_outside_the_fast_path_fall_back():
    others = [{"parts": [part]} for part in [{"inline_data": {"data": "AA==", "mime_type": "a/b"}},
                                             {"functionCall": {"name": "f"}}, {}, {"text": "t", "video_metadata": {}}]]
    for content in [*others, {"role": 3}, {"parts": [{"function_call": {"name": "f", "args": "not a dict"}}]}]:
        with pytest.raises(ValidationError):
            plain_content.validate_json(json.dumps(content))
    for content in others:  # and genai's own validation reads them
        _same(_read_back(content).content, types.Content.model_validate(content))


def test_python_input_keeps_genai_validation():
    args = {"city": "Paris"}
    event = Event(author="m", content={"parts": [{"function_call": {"name": "f", "args": args}}]})
    assert event.content.parts[0].function_call.args == args
    # validated from Python, pydantic copies what it is given; the fast path is for JSON only
    assert event.content.parts[0].function_call.args is not args


def test_a_stored_event_round_trips_exactly():
    event = Event(
        author="model",
        invocation_id="e-1",
        content=types.Content(
            role="model",
            parts=[
                types.Part(text="thinking", thought=True),
                types.Part(function_call=types.FunctionCall(id="c1", name="lookup", args={"q": [1, 2.5, None]})),
                types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x00\x01")),
            ],
        ),
    )
    again = Event.model_validate_json(event.model_dump_json(exclude_none=True))
    assert again == event
    _same(again.content, event.content)


def test_the_events_json_schema_is_genais_content():
    """The fast path changes how content is read, not what an event accepts."""
    from typing import Optional

    from pydantic import create_model

    plain = create_model("Plain", content=(Optional[types.Content], None))
    ours, genais = Event.model_json_schema(), plain.model_json_schema()
    assert ours["properties"]["content"]["anyOf"] == genais["properties"]["content"]["anyOf"]
    assert ours["$defs"]["Content"] == genais["$defs"]["Content"]
