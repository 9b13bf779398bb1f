"""AutoTracingPlugin through a Runner run: the app's own functions (found from the agent's tools)
become spans with their arguments and results, secrets left out, each function wrapped once."""

from __future__ import annotations

import sys
import textwrap

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from runtime import LlmAgent, ScriptedLlm
from runtime.plugins.auto_tracing_helpers import WRAPPED_ATTR
from runtime.plugins.auto_tracing_plugin import AutoTracingPlugin
from tests.rt_helpers import new_runner, send, texts

APP_CODE = {
    "__init__.py": "",
    "pricing.py": """
        def quote(city: str, nights: int, api_key: str = "sk-live-123") -> dict:
            return {"city": city, "total": 100 * nights}
    """,
    "agent.py": """
        from autotraced_app import pricing

        def book(city: str, nights: int) -> dict:
            \"\"\"Books a hotel.\"\"\"
            return pricing.quote(city, nights)
    """,
}


@pytest.fixture
def app_package(tmp_path, monkeypatch):
    """A real package on disk, imported as a user's app would be."""
    package = tmp_path / "autotraced_app"
    package.mkdir()
    for name, code in APP_CODE.items():
        (package / name).write_text(textwrap.dedent(code))
    monkeypatch.syspath_prepend(str(tmp_path))
    import autotraced_app.agent  # noqa: F401 - the app as the user imports it

    yield sys.modules["autotraced_app.agent"], sys.modules["autotraced_app.pricing"]
    for name in [m for m in sys.modules if m.startswith("autotraced_app")]:
        del sys.modules[name]


async def test_the_apps_functions_become_spans_with_their_arguments_and_results(app_package):
    agent_module, pricing = app_package
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    plugin = AutoTracingPlugin(tracer=provider.get_tracer("test"))
    model = ScriptedLlm([ScriptedLlm.call("book", city="Oslo", nights=2), "Booked.", "Again."])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[agent_module.book]), plugins=[plugin])

    events = await send(runner, "book Oslo")

    assert texts(events) == ["Booked."]
    # The tool object was captured before wrapping, but the helper it calls is traced.
    quote = {s.name: dict(s.attributes) for s in exporter.get_finished_spans()}["quote"]
    assert quote == {
        "adk.fn.arg.city": "'Oslo'",
        "adk.fn.arg.nights": "2",
        "adk.fn.return": "{'city': 'Oslo', 'total': 200}",
    }  # api_key, a secret by its name, is not recorded
    assert getattr(pricing.quote, WRAPPED_ATTR) is True
    wrapped = pricing.quote
    await send(runner, "again")
    assert pricing.quote is wrapped  # a second run does not wrap the wrapper


async def test_a_tracer_that_records_nothing_leaves_the_app_untouched(app_package):
    from opentelemetry.trace import NoOpTracer

    _, pricing = app_package
    original = pricing.quote
    model = ScriptedLlm(["Hi."])
    plugin = AutoTracingPlugin(tracer=NoOpTracer(), extra_scope_prefixes=("autotraced_app",))
    runner = await new_runner(LlmAgent(name="a", model=model), plugins=[plugin])
    await send(runner, "hello")
    assert pricing.quote is original
