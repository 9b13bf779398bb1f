"""The model layer without a network: requests, responses, the registry and the scripted model."""

from __future__ import annotations

import time

import pytest
from google.genai import types
from pydantic import BaseModel

from domain.errors import InvalidArgumentError
from domain.events import Event
from runtime.models import (
    BaseLlm,
    Gemini,
    LLMRegistry,
    LlmRequest,
    LlmResponse,
    ScriptedLlm,
    ScriptExhaustedError,
    StreamingAggregator,
    UnknownModelError,
)


def user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


async def collect(llm: BaseLlm, llm_request: LlmRequest, stream: bool = False) -> list[LlmResponse]:
    return [r async for r in llm.generate_content_async(llm_request, stream=stream)]


async def ask(llm: BaseLlm, text: str = "hi") -> LlmResponse:
    [response] = await collect(llm, LlmRequest(contents=[user(text)]))
    return response


class Tool:
    def __init__(self, name: str, declared: bool = True):
        self.name, self._declared = name, declared

    def _get_declaration(self):
        return types.FunctionDeclaration(name=self.name, description=self.name) if self._declared else None


# LlmRequest


def test_append_instructions_joins_them_in_order_as_google_adk_does():
    llm_request = LlmRequest()
    llm_request.append_instructions(["First."])
    llm_request.append_instructions(["Second.", "", "Third."])

    # An empty instruction still adds its blank line, as in google-adk 2.13 (the prompt must match).
    assert llm_request.config.system_instruction == "First.\n\nSecond.\n\n\n\nThird."


def test_append_instructions_extends_a_content_instruction():
    llm_request = LlmRequest(
        config=types.GenerateContentConfig(system_instruction=types.Content(parts=[types.Part(text="A")]))
    )
    llm_request.append_instructions(["B"])

    assert [p.text for p in llm_request.config.system_instruction.parts] == ["A", "B"]


def test_append_tools_declares_all_functions_in_one_tool():
    llm_request = LlmRequest()
    llm_request.append_tools([Tool("a"), Tool("b")])
    llm_request.append_tools([Tool("c"), Tool("silent", declared=False)])

    [tool] = llm_request.config.tools
    assert [d.name for d in tool.function_declarations] == ["a", "b", "c"]
    assert set(llm_request.tools_dict) == {"a", "b", "c"}


def test_tools_dict_is_not_serialised():
    llm_request = LlmRequest(contents=[user("hi")])
    llm_request.append_tools([Tool("a")])

    assert "tools_dict" not in llm_request.model_dump()
    assert "tools_dict" not in llm_request.model_dump_json()


def test_set_output_schema():
    class Answer(BaseModel):
        value: int

    llm_request = LlmRequest()
    llm_request.set_output_schema(Answer)

    assert llm_request.config.response_schema is Answer
    assert llm_request.config.response_mime_type == "application/json"


def test_requests_do_not_share_defaults():
    first, second = LlmRequest(), LlmRequest()
    first.contents.append(user("hi"))
    first.append_instructions(["x"])

    assert second.contents == [] and second.config.system_instruction is None


# LlmResponse


def sdk_response(**fields) -> types.GenerateContentResponse:
    return types.GenerateContentResponse.model_validate(fields)


def test_create_takes_the_first_candidate():
    response = LlmResponse.create(sdk_response(
        candidates=[
            {"content": {"role": "model", "parts": [{"text": "first"}]}, "finishReason": "STOP"},
            {"content": {"role": "model", "parts": [{"text": "second"}]}, "finishReason": "STOP"},
        ],
        usageMetadata={"promptTokenCount": 2, "candidatesTokenCount": 1, "totalTokenCount": 3},
    ))

    assert response.content.parts[0].text == "first"
    assert response.finish_reason == types.FinishReason.STOP
    assert response.usage_metadata.total_token_count == 3
    assert response.error_code is None


def test_create_reports_a_blocked_prompt():
    response = LlmResponse.create(sdk_response(
        promptFeedback={"blockReason": "PROHIBITED_CONTENT", "blockReasonMessage": "Not allowed."}
    ))

    assert response.content is None
    assert (response.error_code, response.error_message) == ("PROHIBITED_CONTENT", "Not allowed.")


def test_create_reports_no_candidates():
    assert LlmResponse.create(sdk_response()).error_code == "UNKNOWN_ERROR"


def test_create_reports_an_empty_non_stop_finish():
    response = LlmResponse.create(sdk_response(candidates=[{"finishReason": "SAFETY"}]))

    assert response.error_code == "SAFETY"
    assert response.finish_reason == types.FinishReason.SAFETY


def test_create_keeps_content_cut_short():
    response = LlmResponse.create(sdk_response(
        candidates=[{"content": {"role": "model", "parts": [{"text": "Once upon"}]}, "finishReason": "MAX_TOKENS"}]
    ))

    assert response.content.parts[0].text == "Once upon" and response.error_code is None
    assert response.finish_reason == types.FinishReason.MAX_TOKENS


def test_a_response_becomes_an_event():
    response = LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text="hi")]),
        finish_reason=types.FinishReason.STOP,
        usage_metadata=types.GenerateContentResponseUsageMetadata(total_token_count=3),
    )

    event = Event(author="agent", **response.model_dump(exclude_none=True))

    assert event.content.parts[0].text == "hi" and event.usage_metadata.total_token_count == 3


def test_response_round_trips_through_json():
    response = LlmResponse(content=user("hi"), partial=True, custom_metadata={"k": 1})

    assert LlmResponse.model_validate_json(response.model_dump_json(by_alias=True)) == response


# StreamingAggregator


def test_aggregator_merges_adjacent_text_and_keeps_the_rest():
    aggregator = StreamingAggregator()
    signature = b"sig"
    for part in [
        types.Part(text="Hmm, ", thought=True),
        types.Part(text="weather.", thought=True, thought_signature=signature),
        types.Part(text="Looking "),
        types.Part(text="it up."),
        types.Part(function_call=types.FunctionCall(name="get_weather", args={})),
        types.Part(text=""),
    ]:
        aggregator.add(LlmResponse(content=types.Content(role="model", parts=[part]), partial=True))
    aggregator.add(LlmResponse(finish_reason=types.FinishReason.STOP, partial=True))

    final = aggregator.close()

    thought, text, call = final.content.parts
    assert (thought.text, thought.thought, thought.thought_signature) == ("Hmm, weather.", True, signature)
    assert text.text == "Looking it up." and not text.thought
    assert call.function_call.name == "get_weather"
    assert final.finish_reason == types.FinishReason.STOP
    assert (final.partial, final.turn_complete) == (False, True)


def test_aggregator_does_not_change_the_partials_it_saw():
    aggregator = StreamingAggregator()
    first = LlmResponse(content=types.Content(role="model", parts=[types.Part(text="a")]), partial=True)
    aggregator.add(first)
    aggregator.add(LlmResponse(content=types.Content(role="model", parts=[types.Part(text="b")]), partial=True))

    assert aggregator.close().content.parts[0].text == "ab"
    assert first.content.parts[0].text == "a"


# LLMRegistry


def test_registry_resolves_gemini_names():
    assert LLMRegistry.resolve("gemini-2.5-flash") is Gemini
    assert LLMRegistry.resolve("gemini-2.0-flash-lite") is Gemini
    llm = LLMRegistry.new_llm("gemini-2.5-pro")
    assert isinstance(llm, Gemini) and llm.model == "gemini-2.5-pro"


def test_registry_refuses_unknown_names():
    with pytest.raises(UnknownModelError, match="gpt-4o") as caught:
        LLMRegistry.resolve("gpt-4o")

    assert isinstance(caught.value, InvalidArgumentError) and isinstance(caught.value, ValueError)
    assert "register" in str(caught.value)


def test_registry_takes_new_model_classes(monkeypatch):
    monkeypatch.setattr(LLMRegistry, "_registry", dict(LLMRegistry._registry))

    class EchoLlm(BaseLlm):
        @classmethod
        def supported_models(cls) -> list[str]:
            return [r"echo-\d+"]

        async def generate_content_async(self, llm_request, stream=False):
            yield LlmResponse(content=llm_request.contents[-1])

    LLMRegistry.register(EchoLlm)

    assert LLMRegistry.resolve("echo-1") is EchoLlm
    with pytest.raises(UnknownModelError):
        LLMRegistry.resolve("echo-x")


def test_base_llm_is_abstract():
    with pytest.raises(TypeError):
        BaseLlm(model="x")


# ScriptedLlm


async def test_scripted_replays_turns_in_order_and_records_requests():
    llm = ScriptedLlm(["Hello!", types.Content(role="model", parts=[types.Part(text="Again?")])])

    first, second = await ask(llm, "one"), await ask(llm, "two")

    assert first.content.parts[0].text == "Hello!" and first.content.role == "model"
    assert second.content.parts[0].text == "Again?"
    assert first.finish_reason == types.FinishReason.STOP
    assert first.usage_metadata.total_token_count > 0
    assert [r.contents[0].parts[0].text for r in llm.requests] == ["one", "two"]
    assert llm.turns_played == 2


async def test_scripted_errors_clearly_when_exhausted():
    llm = ScriptedLlm(["only"])
    await ask(llm)

    with pytest.raises(ScriptExhaustedError, match="played all 1 of its turns.*cycle=True"):
        await ask(llm)
    with pytest.raises(ScriptExhaustedError, match="no turns"):
        await ask(ScriptedLlm())


async def test_scripted_cycles_when_asked():
    llm = ScriptedLlm(["a", "b"], cycle=True)

    texts = [(await ask(llm)).content.parts[0].text for _ in range(5)]

    assert texts == ["a", "b", "a", "b", "a"]


async def test_scripted_function_call_turn():
    llm = ScriptedLlm([ScriptedLlm.call("get_weather", city="Paris", name="x")])

    response = await ask(llm)

    [part] = response.content.parts
    assert part.function_call.name == "get_weather"
    assert part.function_call.args == {"city": "Paris", "name": "x"}
    assert part.function_call.id.startswith("call-")


async def test_scripted_cycled_calls_get_fresh_ids():
    llm = ScriptedLlm([ScriptedLlm.call("ping")], cycle=True)

    ids = {(await ask(llm)).content.parts[0].function_call.id for _ in range(3)}

    assert len(ids) == 3


async def test_scripted_parallel_calls():
    content = ScriptedLlm.calls(("a", {"x": 1}), ("b", {}))

    assert [p.function_call.name for p in content.parts] == ["a", "b"]
    assert len({p.function_call.id for p in content.parts}) == 2


async def test_scripted_turn_can_answer_from_the_request():
    def answer_with_tool_result(llm_request: LlmRequest) -> str:
        result = ScriptedLlm.last_function_response(llm_request)
        return f"It is {result.response['result']} in Paris."

    llm = ScriptedLlm([ScriptedLlm.call("get_weather", city="Paris"), answer_with_tool_result])
    call = (await ask(llm, "Weather in Paris?")).content
    tool_result = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id=call.parts[0].function_call.id, name="get_weather", response={"result": "sunny"},
    ))])

    [answer] = await collect(llm, LlmRequest(contents=[user("Weather in Paris?"), call, tool_result]))

    assert answer.content.parts[0].text == "It is sunny in Paris."


async def test_scripted_turn_can_be_async_or_a_full_response():
    async def later(llm_request: LlmRequest) -> types.Content:
        return types.Content(role="model", parts=[types.Part(text="async")])

    error = LlmResponse(error_code="SAFETY", error_message="blocked", finish_reason=types.FinishReason.SAFETY)
    llm = ScriptedLlm([later, error])

    assert (await ask(llm)).content.parts[0].text == "async"
    assert (await ask(llm)).error_code == "SAFETY"


async def test_scripted_refuses_a_bad_turn():
    with pytest.raises(TypeError, match="turn #1 gave int"):
        await ask(ScriptedLlm([lambda request: 42]))


async def test_scripted_streams_partials_then_the_whole_turn():
    text = "The weather in Paris is sunny and warm today."
    llm = ScriptedLlm([text], stream_chunks=4)

    *partials, final = await collect(llm, LlmRequest(contents=[user("hi")]), stream=True)

    assert len(partials) == 4 and all(p.partial for p in partials)
    assert "".join(p.content.parts[0].text for p in partials) == text
    assert final.content.parts[0].text == text
    assert (final.partial, final.turn_complete) == (False, True)
    assert final.finish_reason == types.FinishReason.STOP
    assert final.usage_metadata is not None


async def test_scripted_streams_a_function_call_turn():
    llm = ScriptedLlm([types.Content(role="model", parts=[
        types.Part(text="Let me check."), types.Part(function_call=types.FunctionCall(id="c1", name="f", args={})),
    ])])

    *partials, final = await collect(llm, LlmRequest(contents=[user("hi")]), stream=True)

    assert partials[-1].content.parts[0].function_call.name == "f"
    text, call = final.content.parts
    assert text.text == "Let me check." and call.function_call.id == "c1"


async def test_scripted_is_fast():
    llm = ScriptedLlm(["Sure, here you go.", ScriptedLlm.call("lookup", key="k")], cycle=True)
    contents = [user(f"message {i}") for i in range(20)]
    started = time.perf_counter()

    for _ in range(1000):
        await collect(llm, LlmRequest(contents=contents))

    assert time.perf_counter() - started < 1.0  # well over 200 turns/s, with room for slow machines
