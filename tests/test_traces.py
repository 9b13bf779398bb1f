"""Traces: live spans in OpenTelemetry's GenAI conventions, captured with the SDK's in-memory
exporter during a real run (the google-genai client against the local Gemini server), and the
same spans folded from the session's log after the fact, on every store; `chronicle traces`
sends them to a real OTLP/HTTP receiver, and the server's traces route answers with auth."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest
from google.genai import types
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from runtime import Gemini, LlmAgent, Runner
from runtime.sessions import session_service_from_url
from runtime.telemetry.after import TraceSpan, session_spans
from tests.cli_helpers import cli, cli_json
from tests.gemini_server import GeminiServer, gemini_server  # noqa: F401 - fixture
from tests.server_helpers import ANN, BOB, Served, message

APP, USER, SESSION = "traced", "ann", "s1"


def get_weather(city: str) -> dict:
    """Current weather in a city.

    Args:
      city: The city's name.
    """
    return {"city": city, "forecast": "sunny"}


def book_table(place: str) -> dict:
    """Books a table.

    Args:
      place: Where.
    """
    raise ValueError(f"no tables left at {place}")


def agents(server: GeminiServer) -> LlmAgent:
    """A coordinator with a tool and a sub-agent (a concierge whose tool fails)."""
    def model() -> Gemini:
        return Gemini(model="gemini-test", api_key="test-key", base_url=server.url)

    concierge = LlmAgent(name="concierge", description="Books tables.", model=model(), instruction="Book.",
                         tools=[book_table])
    return LlmAgent(name="coordinator", model=model(), instruction="Coordinate.", tools=[get_weather],
                    sub_agents=[concierge])


@pytest.fixture
def live_spans(monkeypatch) -> Iterator[InMemorySpanExporter]:
    """Tracing switched on (an SDK provider with an in-memory exporter) for one test; afterwards
    the API is back to its no-op default, so other tests run untraced."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", provider)  # set_tracer_provider works once per process
    yield exporter
    provider.shutdown()


async def turn(runner: Runner, text: str) -> None:
    async for _ in runner.run_async(user_id=USER, session_id=SESSION,
                                    new_message=types.Content(role="user", parts=[types.Part(text=text)])):
        pass


def shape_of_live(spans: tuple[ReadableSpan, ...]) -> list[tuple[Any, ...]]:
    by_id = {s.context.span_id: s for s in spans}

    def path(span: ReadableSpan) -> tuple[str, ...]:
        parent = by_id.get(span.parent.span_id) if span.parent else None
        return (*path(parent), span.name) if parent else (span.name,)

    return sorted((path(s), sorted(s.attributes.items()), s.status.status_code == StatusCode.ERROR) for s in spans)


def shape_of_folded(spans: list[TraceSpan]) -> list[tuple[Any, ...]]:
    by_id = {s.span_id: s for s in spans}

    def path(span: TraceSpan) -> tuple[str, ...]:
        parent = by_id.get(span.parent_span_id) if span.parent_span_id else None
        return (*path(parent), span.name) if parent else (span.name,)

    return sorted((path(s), sorted(s.attributes.items()), s.error) for s in spans)


async def record_conversation(store_url: str, server: GeminiServer, exporter: InMemorySpanExporter | None) -> Any:
    """Three turns: one before tracing is switched on, then a tool call and a transfer to the
    concierge, then the concierge's failing tool."""
    service = session_service_from_url(store_url)
    runner = Runner(agent=agents(server), app_name=APP, session_service=service)
    await service.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    server.reply_text("Hello.")
    await turn(runner, "hi")  # before tracing: the fold still gives its spans
    if exporter is not None:
        trace_on = TracerProvider()
        trace_on.add_span_processor(SimpleSpanProcessor(exporter))
        trace._TRACER_PROVIDER = trace_on
    server.reply_function_call("get_weather", {"city": "Paris"})
    server.reply_function_call("transfer_to_agent", {"agent_name": "concierge"})
    server.reply_text("It is sunny; shall I book?")
    await turn(runner, "Weather in Paris, then a table?")
    server.reply_function_call("book_table", {"place": "Chez Ada"})
    with pytest.raises(ValueError, match="no tables left"):
        await turn(runner, "Yes, book it.")
    return service


async def test_live_spans_follow_the_conventions_and_point_at_the_logged_events(store_url, gemini_server, monkeypatch):
    exporter = InMemorySpanExporter()
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", None)  # untraced first; restored afterwards
    service = await record_conversation(store_url, gemini_server, exporter)
    live = exporter.get_finished_spans()
    names = sorted(s.name for s in live)
    assert names == sorted([
        "invoke_agent coordinator", "generate_content gemini-test", "execute_tool get_weather",
        "generate_content gemini-test", "execute_tool transfer_to_agent",
        "invoke_agent concierge", "generate_content gemini-test",  # the transfer's run nests here
        "invoke_agent concierge", "generate_content gemini-test", "execute_tool book_table",
    ])
    by_id = {s.context.span_id: s for s in live}
    roots = [s for s in live if s.parent is None]
    assert sorted(r.name for r in roots) == ["invoke_agent concierge", "invoke_agent coordinator"]
    nested = next(s for s in live if s.name == "invoke_agent concierge" and s.parent is not None)
    assert by_id[nested.parent.span_id].name == "invoke_agent coordinator"

    model = next(s for s in live if s.name.startswith("generate_content"))
    assert model.attributes["gen_ai.operation.name"] == "generate_content"
    assert model.attributes["gen_ai.provider.name"] == "gcp.gemini"
    assert model.attributes["gen_ai.request.model"] == "gemini-test"
    assert model.attributes["gen_ai.conversation.id"] == SESSION
    assert (model.attributes["gen_ai.usage.input_tokens"], model.attributes["gen_ai.usage.output_tokens"]) == (10, 5)
    weather = next(s for s in live if s.name == "execute_tool get_weather")
    assert weather.attributes["gen_ai.tool.name"] == "get_weather"
    assert weather.attributes["gen_ai.agent.name"] == "coordinator"
    assert by_id[weather.parent.span_id].name == "invoke_agent coordinator"

    # Each span names the logged event it produced: its id, version and digest in the log.
    session = await service.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    versions = {e.id: v for v, e in enumerate(session.events, start=2)}
    result = next(e for e in session.events if any(r.name == "get_weather" for r in e.get_function_responses()))
    assert weather.attributes["gen_ai.tool.call.id"] == result.get_function_responses()[0].id
    assert weather.attributes["chronicle.event.id"] == result.id
    assert weather.attributes["chronicle.log.version"] == versions[result.id]
    assert weather.attributes["chronicle.event.digest"].startswith("2:")

    # The failing tool: error.type is the exception's class, and the span points at the event
    # that records the failure.
    failed = next(s for s in live if s.name == "execute_tool book_table")
    assert failed.status.status_code == StatusCode.ERROR
    assert failed.attributes["error.type"] == "ValueError"
    record = session.events[-1]
    assert record.error_code == "ValueError" and failed.attributes["chronicle.event.id"] == record.id

    # After the fact: the same spans (names, nesting, attributes, status) from the store's log,
    # plus those of the turn recorded before tracing was on.
    folded = await service.store.call(session_spans, service.store, APP, USER, SESSION)
    first_invocation = session.events[0].invocation_id
    before = [s for s in folded if s.attributes["chronicle.invocation.id"] == first_invocation]
    assert sorted(s.name for s in before) == ["generate_content gemini-test", "invoke_agent coordinator"]
    assert shape_of_folded([s for s in folded if s not in before]) == shape_of_live(live)
    # Each invocation is a trace of its own, with ids that a second reading gives again.
    assert len({s.trace_id for s in folded}) == 3
    again = await service.store.call(session_spans, service.store, APP, USER, SESSION)
    assert [(s.span_id, s.parent_span_id) for s in again] == [(s.span_id, s.parent_span_id) for s in folded]
    # Times come from the events: each span within its parent.
    by_span = {s.span_id: s for s in folded}
    for span in folded:
        assert span.start_time_unix_nano <= span.end_time_unix_nano
        if span.parent_span_id:
            parent = by_span[span.parent_span_id]
            assert parent.start_time_unix_nano <= span.start_time_unix_nano <= span.end_time_unix_nano <= parent.end_time_unix_nano
    await service.close()


async def test_untraced_runs_make_no_spans(gemini_server, live_spans, monkeypatch):
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", None)
    service = session_service_from_url("memory://")
    runner = Runner(agent=agents(gemini_server), app_name=APP, session_service=service)
    await service.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    gemini_server.reply_text("Hello.")
    await turn(runner, "hi")
    assert live_spans.get_finished_spans() == ()
    await service.close()


async def test_a_tool_error_result_carries_error_type(gemini_server, live_spans):
    def lookup(key: str) -> dict:
        """Looks a key up.

        Args:
          key: The key.
        """
        return {"error": f"no such key {key}"}

    service = session_service_from_url("memory://")
    agent = LlmAgent(name="clerk", model=Gemini(model="gemini-test", api_key="k", base_url=gemini_server.url),
                     instruction="Look up.", tools=[lookup])
    runner = Runner(agent=agent, app_name=APP, session_service=service)
    await service.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    gemini_server.reply_function_call("lookup", {"key": "k1"})
    gemini_server.reply_text("Not found.")
    await turn(runner, "look k1 up")
    live = live_spans.get_finished_spans()
    tool = next(s for s in live if s.name == "execute_tool lookup")
    assert tool.attributes["error.type"] == "_OTHER" and tool.status.status_code == StatusCode.ERROR
    folded = await service.store.call(session_spans, service.store, APP, USER, SESSION)
    assert shape_of_folded(folded) == shape_of_live(live)
    await service.close()


# -- OTLP/HTTP export ------------------------------------------------------------------------------


class OtlpReceiver:
    """A real OTLP/HTTP trace receiver on a loopback port: decodes each protobuf request."""

    def __init__(self) -> None:
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

        received: list[Any] = []
        self.requests = received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = trace_service_pb2.ExportTraceServiceRequest()
                request.ParseFromString(body)
                received.append((self.path, self.headers["Content-Type"], request))
                reply = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def spans(self) -> list[Any]:
        return [span for _, _, request in self.requests for rs in request.resource_spans
                for ss in rs.scope_spans for span in ss.spans]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _value(any_value: Any) -> Any:
    return getattr(any_value, any_value.WhichOneof("value"))


async def test_chronicle_traces_sends_a_past_session_over_otlp(tmp_path, gemini_server, monkeypatch):
    store = f"sqlite:///{tmp_path}/chronicle.db"
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", None)
    service = await record_conversation(store, gemini_server, None)  # recorded with tracing off
    await service.close()
    printed = cli_json("traces", SESSION, "--app", APP, store=store)["spans"]
    assert {s["name"] for s in printed} >= {"invoke_agent coordinator", "execute_tool book_table"}

    receiver = OtlpReceiver()
    try:
        done = cli("traces", SESSION, "--otlp", receiver.url, "--service-name", "shop", store=store)
        assert f"Sent {len(printed)} spans" in done.stdout
        [(path, content_type, request)] = receiver.requests
        assert path == "/v1/traces" and content_type == "application/x-protobuf"
        resource = request.resource_spans[0].resource
        assert {a.key: _value(a.value) for a in resource.attributes}["service.name"] == "shop"
        got = {span.span_id.hex(): span for span in receiver.spans()}
        assert len(got) == len(printed)
        for sent in printed:
            span = got[sent["span_id"]]
            assert span.name == sent["name"]
            assert span.trace_id.hex() == sent["trace_id"]
            assert (span.parent_span_id.hex() or None) == sent["parent_span_id"]
            assert (span.start_time_unix_nano, span.end_time_unix_nano) == (
                sent["start_time_unix_nano"], sent["end_time_unix_nano"])
            assert {a.key: _value(a.value) for a in span.attributes} == sent["attributes"]
            assert (span.status.code == span.status.STATUS_CODE_ERROR) == sent["error"]
    finally:
        receiver.close()
    refused = cli("traces", SESSION, "--otlp", "ftp://nowhere", store=store, expect=None)
    assert refused.returncode != 0 and "http(s) URL" in refused.stderr


# -- the server's route ----------------------------------------------------------------------------


def test_the_traces_route_answers_the_viewer_with_auth(tmp_path):
    store = f"sqlite:///{tmp_path}/chronicle.db"
    with GeminiServer() as gemini:
        served = Served(store, env={"GOOGLE_GEMINI_BASE_URL": gemini.url})
        try:
            with served.client(ANN) as ann:
                created = ann.post("/apps/weather/users/ann/sessions", json={"sessionId": "w1"})
                assert created.status_code == 200, created.text
                gemini.reply_function_call("get_weather", {"city": "Oslo"})
                gemini.reply_text("Sunny in Oslo.")
                ran = ann.post("/run", json={"appName": "weather", "userId": "ann", "sessionId": "w1",
                                             "newMessage": message("Weather in Oslo?")})
                assert ran.status_code == 200, ran.text
                path = "/chronicle/apps/weather/users/ann/sessions/w1/traces"
                answer = ann.get(path)
                assert answer.status_code == 200, answer.text
                spans = answer.json()["spans"]
                assert set(answer.json()) == {"spans"}
                assert all(set(s) == {"name", "span_id", "parent_span_id", "start_time_unix_nano",
                                      "end_time_unix_nano", "attributes"} for s in spans)
                # After the fact a model call is named by the model that answered (the local
                # server says "gemini-test"): the log does not hold the name the agent asked for.
                assert [s["name"] for s in spans] == [
                    "invoke_agent forecaster", "generate_content gemini-test", "execute_tool get_weather",
                    "generate_content gemini-test",
                ]
                root = spans[0]
                assert root["parent_span_id"] is None
                assert all(s["parent_span_id"] == root["span_id"] for s in spans[1:])
                assert root["attributes"]["gen_ai.conversation.id"] == "w1"
                assert ann.get("/chronicle/apps/weather/users/ann/sessions/nope/traces").status_code == 404
            with served.client(BOB) as bob:
                assert bob.get(path).status_code == 403
            with served.client(None) as anonymous:
                assert anonymous.get(path).status_code == 401
        finally:
            served.stop()
    folded = session_spans_of(store, "weather", "ann", "w1")
    assert [s.to_json() for s in folded] == spans


def session_spans_of(url: str, app: str, user: str, session: str) -> list[TraceSpan]:
    from runtime.stores import open_store

    store = open_store(url)
    try:
        return session_spans(store, app, user, session)
    finally:
        store.close()


def test_the_json_of_a_span_is_what_the_route_promises():
    span = TraceSpan("execute_tool t", "a" * 32, "b" * 16, None, 1, 2, {"gen_ai.tool.name": "t"}, error=True)
    assert json.loads(json.dumps(span.to_json())) == {
        "name": "execute_tool t", "span_id": "b" * 16, "parent_span_id": None,
        "start_time_unix_nano": 1, "end_time_unix_nano": 2, "attributes": {"gen_ai.tool.name": "t"},
    }


async def test_a_streamed_turn_of_a_scripted_model_gives_the_same_spans_live_and_after(live_spans):
    from runtime import RunConfig, StreamingMode
    from runtime.models import ScriptedLlm

    service = session_service_from_url("memory://")
    model = ScriptedLlm([ScriptedLlm.call("get_weather", city="Rome"), "Sunny in Rome."])
    agent = LlmAgent(name="forecaster", model=model, instruction="Weather.", tools=[get_weather])
    runner = Runner(agent=agent, app_name=APP, session_service=service)
    await service.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    async for _ in runner.run_async(user_id=USER, session_id=SESSION, new_message=types.Content(
            role="user", parts=[types.Part(text="Rome?")]), run_config=RunConfig(streaming_mode=StreamingMode.SSE)):
        pass
    live = live_spans.get_finished_spans()
    model_spans = [s for s in live if s.attributes["gen_ai.operation.name"] == "chat"]
    assert [s.name for s in model_spans] == ["chat scripted", "chat scripted"]
    assert model_spans[0].attributes["gen_ai.provider.name"] == "chronicle"
    folded = await service.store.call(session_spans, service.store, APP, USER, SESSION)
    assert shape_of_folded(folded) == shape_of_live(live)
    await service.close()
