"""An LlmAgent's output_schema may be what google-adk 2.13 takes: a model class, `list[...]`, a dict
(JSON schema) or a `types.Schema`; the answer reaches output_key parsed as 2.13 parses it. (The
requests are compared with 2.13's by tests/test_adk_requests.py, app output_schema_types.)"""

from __future__ import annotations

import pytest
from google.genai import types
from pydantic import BaseModel

from runtime import LlmAgent, ScriptedLlm
from tests.rt_helpers import new_runner, send, stored


class City(BaseModel):
    name: str
    river: str | None = None


@pytest.mark.parametrize("schema, answer, kept", [
    (City, '{"name": "Paris", "river": "Seine"}', {"name": "Paris", "river": "Seine"}),
    (list[City], '[{"name": "Paris", "river": "Seine"}, {"name": "Lyon"}]',
     [{"name": "Paris", "river": "Seine"}, {"name": "Lyon"}]),
    (list[str], '```json\n["Paris", "Lyon"]\n```', ["Paris", "Lyon"]),
    ({"type": "object", "properties": {"rank": {"type": "integer"}}}, '{"rank": 2}', {"rank": 2}),
    (types.Schema(type=types.Type.ARRAY, items=types.Schema(type=types.Type.INTEGER)), "[1, 2]", [1, 2]),
])
async def test_the_answer_is_kept_parsed_by_its_schema(schema, answer, kept):
    runner = await new_runner(LlmAgent(name="a", model=ScriptedLlm([answer]), output_schema=schema, output_key="out"))
    await send(runner, "go")
    assert (await stored(runner)).state["out"] == kept


async def test_an_answer_that_does_not_fit_a_model_list_is_an_error():
    runner = await new_runner(LlmAgent(name="a", model=ScriptedLlm(['[{"river": "Seine"}]']),
                                       output_schema=list[City], output_key="out"))
    with pytest.raises(ValueError):
        await send(runner, "go")
    assert "out" not in (await stored(runner)).state
