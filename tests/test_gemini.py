"""Gemini through the real google-genai SDK, against the local fake of the Gemini REST API."""

from __future__ import annotations

import asyncio
import time

import pytest
from google.genai import errors, types
from pydantic import BaseModel

from domain.errors import InvalidArgumentError
from runtime.models import Gemini, LlmRequest, LlmResponse, ModelConnectionError

try:  # the fixture is imported, not provided by conftest.py
    from tests.gemini_server import GeminiServer, function_call_part, gemini_server, response_json, text_part
except ModuleNotFoundError:  # tests/ is on sys.path but its parent is not
    from gemini_server import GeminiServer, function_call_part, gemini_server, response_json, text_part

__all__ = ["gemini_server"]  # a fixture, used by name


def user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def request(*contents: types.Content, **config) -> LlmRequest:
    return LlmRequest(contents=list(contents), config=types.GenerateContentConfig(**config))


async def collect(llm: Gemini, llm_request: LlmRequest, stream: bool = False) -> list[LlmResponse]:
    return [r async for r in llm.generate_content_async(llm_request, stream=stream)]


@pytest.fixture
def llm(gemini_server: GeminiServer) -> Gemini:
    return Gemini(api_key="test-key", base_url=gemini_server.url)


class WeatherTool:
    """The slice of a tool an LlmRequest needs."""

    name = "get_weather"

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name,
            description="Current weather in a city.",
            parameters=types.Schema(
                type=types.Type.OBJECT,
                properties={"city": types.Schema(type=types.Type.STRING)},
                required=["city"],
            ),
        )


async def test_text_answer_with_usage(gemini_server: GeminiServer, llm: Gemini):
    gemini_server.reply_text("Hello, Ada!", prompt_tokens=12, candidates_tokens=4)

    [response] = await collect(llm, request(user("Hi, I am Ada")))

    assert response.content.role == "model"
    assert response.content.parts[0].text == "Hello, Ada!"
    assert response.finish_reason == types.FinishReason.STOP
    assert response.usage_metadata.prompt_token_count == 12
    assert response.usage_metadata.candidates_token_count == 4
    assert response.usage_metadata.total_token_count == 16
    assert response.partial is None and response.error_code is None

    [sent] = gemini_server.requests
    assert sent.method_name == "generateContent" and not sent.streaming
    assert sent.model == "gemini-2.5-flash"
    assert sent.headers["x-goog-api-key"] == "test-key"


async def test_request_model_overrides_the_default(gemini_server: GeminiServer, llm: Gemini):
    gemini_server.reply_text("ok")
    llm_request = request(user("hi"))
    llm_request.model = "gemini-2.5-pro"

    await collect(llm, llm_request)

    assert gemini_server.requests[0].model == "gemini-2.5-pro"


async def test_function_call_answer(gemini_server: GeminiServer, llm: Gemini):
    gemini_server.reply_function_call("get_weather", {"city": "Paris", "days": 2}, id="fc-1")

    [response] = await collect(llm, request(user("Weather in Paris?")))

    [part] = response.content.parts
    assert part.function_call.name == "get_weather"
    assert part.function_call.args == {"city": "Paris", "days": 2}
    assert part.function_call.id == "fc-1"


async def test_request_carries_instructions_tools_contents_and_config(
    gemini_server: GeminiServer, llm: Gemini
):
    gemini_server.reply_text("Sunny.")
    call = types.FunctionCall(id="fc-1", name="get_weather", args={"city": "Paris"})
    result = types.FunctionResponse(id="fc-1", name="get_weather", response={"result": "sunny"})
    llm_request = request(
        user("Weather in Paris?"),
        types.Content(role="model", parts=[types.Part(function_call=call)]),
        types.Content(role="user", parts=[types.Part(function_response=result)]),
        temperature=0.2,
        max_output_tokens=256,
    )
    llm_request.append_instructions(["You are a weather bot.", "Answer briefly."])
    llm_request.append_tools([WeatherTool()])

    await collect(llm, llm_request)

    body = gemini_server.requests[0].body
    assert body["systemInstruction"]["parts"] == [{"text": "You are a weather bot.\n\nAnswer briefly."}]
    [tool] = body["tools"]
    [declaration] = tool["functionDeclarations"]
    assert declaration["name"] == "get_weather"
    assert declaration["parameters"]["required"] == ["city"]
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    assert body["contents"][0]["parts"] == [{"text": "Weather in Paris?"}]
    assert body["contents"][1]["parts"][0]["functionCall"]["args"] == {"city": "Paris"}
    assert body["contents"][2]["parts"][0]["functionResponse"]["response"] == {"result": "sunny"}
    assert body["generationConfig"]["temperature"] == 0.2
    assert body["generationConfig"]["maxOutputTokens"] == 256
    assert "get_weather" in llm_request.tools_dict


async def test_output_schema_asks_for_json(gemini_server: GeminiServer, llm: Gemini):
    class Forecast(BaseModel):
        city: str
        celsius: float

    gemini_server.reply_text('{"city": "Paris", "celsius": 21.5}')
    llm_request = request(user("Forecast for Paris"))
    llm_request.set_output_schema(Forecast)

    [response] = await collect(llm, llm_request)

    config = gemini_server.requests[0].body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    schema = config.get("responseSchema") or config.get("responseJsonSchema")
    assert set(schema["properties"]) == {"city", "celsius"}
    assert Forecast.model_validate_json(response.content.parts[0].text).celsius == 21.5


async def test_conversation_is_made_to_end_with_a_user_turn(gemini_server: GeminiServer, llm: Gemini):
    gemini_server.reply_text("one")
    gemini_server.reply_text("two")
    ends_with_model = request(user("hi"), types.Content(role="model", parts=[types.Part(text="hello")]))

    await collect(llm, request())
    await collect(llm, ends_with_model)

    first, second = (r.body["contents"] for r in gemini_server.requests)
    assert [c["role"] for c in first] == ["user"]
    assert "System Instruction" in first[0]["parts"][0]["text"]
    assert [c["role"] for c in second] == ["user", "model", "user"]
    assert len(ends_with_model.contents) == 2  # the caller's request is left as it was


async def test_streaming_yields_partials_then_one_aggregated_response(
    gemini_server: GeminiServer, llm: Gemini
):
    gemini_server.reply_stream(["The weather ", "in Paris ", "is sunny."], prompt_tokens=7, candidates_tokens=9)

    responses = await collect(llm, request(user("Weather?")), stream=True)

    *partials, final = responses
    assert [p.content.parts[0].text for p in partials] == ["The weather ", "in Paris ", "is sunny."]
    assert all(p.partial for p in partials)
    assert final.partial is False and final.turn_complete is True
    assert [p.text for p in final.content.parts] == ["The weather in Paris is sunny."]
    assert final.finish_reason == types.FinishReason.STOP
    assert final.usage_metadata.total_token_count == 16

    [sent] = gemini_server.requests
    assert sent.streaming and sent.query["alt"] == ["sse"]


async def test_streaming_keeps_function_calls_and_thoughts_apart(gemini_server: GeminiServer, llm: Gemini):
    gemini_server.reply_stream([
        text_part("Let me ", thought=True),
        text_part("check.", thought=True),
        "Checking ",
        "now.",
        function_call_part("get_weather", {"city": "Paris"}),
    ])

    *partials, final = await collect(llm, request(user("Weather?")), stream=True)

    assert len(partials) == 5
    thought, text, call = final.content.parts
    assert thought.thought and thought.text == "Let me check."
    assert not text.thought and text.text == "Checking now."
    assert call.function_call.name == "get_weather" and call.function_call.args == {"city": "Paris"}


async def test_streaming_takes_usage_from_a_trailing_usage_only_chunk(gemini_server: GeminiServer, llm: Gemini):
    gemini_server.reply_stream(["Hi", "!", {"usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 5},
                                            "candidates": []}])

    *partials, final = await collect(llm, request(user("hi")), stream=True)

    assert [p.content.parts[0].text for p in partials] == ["Hi", "!"]
    assert final.content.parts[0].text == "Hi!" and final.error_code is None
    assert final.usage_metadata.total_token_count == 5


async def test_streaming_a_blocked_prompt_ends_with_the_error(gemini_server: GeminiServer, llm: Gemini):
    gemini_server.reply_stream([{"promptFeedback": {"blockReason": "SAFETY"}}])

    [response] = await collect(llm, request(user("something bad")), stream=True)

    assert response.error_code == "SAFETY" and response.turn_complete


async def test_streaming_delivers_chunks_as_they_arrive(gemini_server: GeminiServer, llm: Gemini):
    gemini_server.reply("warm-up")
    await collect(llm, request(user("hi")))  # the SDK's client is built on first use, in seconds on a busy host
    gemini_server.reply_stream(["a", "b", "c"], chunk_delay=0.5)
    started = time.monotonic()
    arrivals = []

    async for response in llm.generate_content_async(request(user("go")), stream=True):
        arrivals.append(time.monotonic() - started)

    assert len(arrivals) == 4
    # The server sleeps 0.5 s before each later chunk: a first chunk delivered as it arrives comes
    # well before the end (a buffered stream delivers all at once); a gap, so a slow start cannot fail it.
    assert arrivals[-1] - arrivals[0] >= 0.5


@pytest.mark.parametrize(
    ("status", "error_class", "status_name"),
    [(500, errors.ServerError, "INTERNAL"), (429, errors.ClientError, "RESOURCE_EXHAUSTED")],
)
@pytest.mark.parametrize("stream", [False, True])
async def test_http_errors_surface_as_api_errors(
    gemini_server: GeminiServer, llm: Gemini, status, error_class, status_name, stream
):
    gemini_server.reply_error(status, "The model is overloaded.")

    with pytest.raises(error_class) as caught:
        await collect(llm, request(user("hi")), stream=stream)

    assert isinstance(caught.value, errors.APIError)
    assert caught.value.code == status
    assert caught.value.status == status_name
    assert caught.value.message == "The model is overloaded."
    assert len(gemini_server.requests) == 1  # no retries unless asked for


async def test_retry_options_retry_transient_errors(gemini_server: GeminiServer):
    llm = Gemini(
        api_key="test-key",
        base_url=gemini_server.url,
        retry_options=types.HttpRetryOptions(attempts=2, initial_delay=0.01, max_delay=0.01, jitter=0),
    )
    gemini_server.reply_error(503, "Try again.")
    gemini_server.reply_text("Back.")

    [response] = await collect(llm, request(user("hi")))

    assert response.content.parts[0].text == "Back."
    assert len(gemini_server.requests) == 2


async def test_blocked_prompt_becomes_an_error_response(gemini_server: GeminiServer, llm: Gemini):
    gemini_server.reply({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 3}})

    [response] = await collect(llm, request(user("something bad")))

    assert response.content is None
    assert response.error_code == "SAFETY"
    assert "blocked" in response.error_message


async def test_empty_non_stop_answer_becomes_an_error_response(gemini_server: GeminiServer, llm: Gemini):
    gemini_server.reply(response_json([], finish_reason="MAX_TOKENS"))
    gemini_server.reply_stream([response_json([], finish_reason=None)], finish_reason="SAFETY")

    [response] = await collect(llm, request(user("write a novel")))
    [final] = await collect(llm, request(user("write a novel")), stream=True)

    assert response.error_code == "MAX_TOKENS" and response.finish_reason == types.FinishReason.MAX_TOKENS
    assert final.error_code == "SAFETY" and final.turn_complete


@pytest.mark.slow
async def test_unreachable_server_gives_a_useful_connection_error():
    with GeminiServer() as server:
        url = server.url
    llm = Gemini(api_key="test-key", base_url=url)  # nothing listens there any more

    with pytest.raises(ModelConnectionError) as caught:
        await collect(llm, request(user("hi")))

    assert url in str(caught.value) and "gemini-2.5-flash" in str(caught.value)
    assert isinstance(caught.value, ConnectionError)


async def test_client_is_created_once(gemini_server: GeminiServer, llm: Gemini):
    gemini_server.reply_text("one")
    gemini_server.reply_text("two")

    await collect(llm, request(user("a")))
    client = llm.api_client
    await collect(llm, request(user("b")))

    assert llm.api_client is client


def test_missing_credentials_say_what_to_set(monkeypatch):
    for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)

    with pytest.raises(InvalidArgumentError, match="GOOGLE_API_KEY"):
        Gemini().api_client


async def test_api_key_from_environment(gemini_server: GeminiServer, monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "env-key")
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    gemini_server.reply_text("ok")

    await collect(Gemini(base_url=gemini_server.url), request(user("hi")))

    assert gemini_server.requests[0].headers["x-goog-api-key"] == "env-key"


async def test_concurrent_calls_share_one_client(gemini_server: GeminiServer, llm: Gemini):
    gemini_server.responder = lambda req: response_json([text_part(req.body["contents"][0]["parts"][0]["text"])])

    results = await asyncio.gather(*(collect(llm, request(user(f"echo {i}"))) for i in range(8)))

    assert sorted(r[0].content.parts[0].text for r in results) == [f"echo {i}" for i in range(8)]
