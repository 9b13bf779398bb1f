"""The plugins ADK ships, each through a Runner run: ReflectAndRetryToolPlugin,
DebugLoggingPlugin, ContextFilterPlugin, SaveFilesAsArtifactsPlugin (on every store),
GlobalInstructionPlugin, MultimodalToolResultsPlugin."""

from __future__ import annotations

import json
import os
import stat

import pytest
from google.genai import types

from runtime import LlmAgent, Runner, ScriptedLlm
from runtime.artifacts import artifact_service_from_url
from runtime.plugins import (
    ContextFilterPlugin,
    DebugLoggingPlugin,
    GlobalInstructionPlugin,
    MultimodalToolResultsPlugin,
    PluginError,
    ReflectAndRetryToolPlugin,
    SaveFilesAsArtifactsPlugin,
    TrackingScope,
)
from runtime.plugins.reflect_retry_tool_plugin import REFLECT_AND_RETRY_RESPONSE_TYPE
from runtime.sessions import session_service_from_url
from tests.rt_helpers import SESSION, USER, content_texts, new_runner, send, stored, texts


def responses(events):
    return [r.response for e in events for r in e.get_function_responses()]


class Flaky:
    """A tool that fails its first `failures` calls."""

    def __init__(self, failures: int):
        self.failures, self.calls = failures, 0

    def __call__(self, city: str) -> dict:
        """Books a hotel."""
        self.calls += 1
        if self.calls <= self.failures:
            raise ConnectionError(f"booking service down (call {self.calls})")
        return {"booked": city}


def flaky_tool(failures: int):
    flaky = Flaky(failures)

    def book(city: str) -> dict:
        """Books a hotel."""
        return flaky(city)

    return book


# -- ReflectAndRetryToolPlugin ----------------------------------------------------------------

async def test_reflect_and_retry_answers_failures_with_guidance_until_the_tool_works():
    model = ScriptedLlm([ScriptedLlm.call("book", city="Oslo")] * 3 + ["Booked."])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[flaky_tool(2)]),
                              plugins=[ReflectAndRetryToolPlugin(max_retries=3)])
    events = await send(runner, "book Oslo")
    first, second, third = responses(events)
    assert first["response_type"] == REFLECT_AND_RETRY_RESPONSE_TYPE and first["retry_count"] == 1
    assert first["error_type"] == "ConnectionError" and "call 1" in first["error_details"]
    assert "retry attempt **1 of 3**" in first["reflection_guidance"]
    assert second["retry_count"] == 2
    assert third == {"booked": "Oslo"}
    assert texts(events) == ["Booked."]


async def test_reflect_and_retry_past_the_limit_raises_or_tells_the_model_to_stop():
    model = ScriptedLlm([ScriptedLlm.call("book", city="Oslo")] * 2)
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[flaky_tool(5)]),
                              plugins=[ReflectAndRetryToolPlugin(max_retries=1)])
    with pytest.raises(PluginError, match="call 2") as raised:  # as in ADK, the plugin manager wraps it
        await send(runner, "book Oslo")
    assert isinstance(raised.value.__cause__, ConnectionError)

    model = ScriptedLlm([ScriptedLlm.call("book", city="Oslo")] * 2 + ["Sorry, booking is down."])
    runner = await new_runner(LlmAgent(name="b", model=model, tools=[flaky_tool(5)]),
                              plugins=[ReflectAndRetryToolPlugin(max_retries=1, throw_exception_if_retry_exceeded=False)])
    events = await send(runner, "book Oslo")
    gave_up = responses(events)[-1]
    assert "Do not attempt to use the `book` tool again" in gave_up["reflection_guidance"]
    assert texts(events) == ["Sorry, booking is down."]


class StatusErrors(ReflectAndRetryToolPlugin):
    async def extract_error_from_result(self, *, tool, tool_args, tool_context, result):
        return result if isinstance(result, dict) and result.get("status") == "error" else None


async def test_reflect_and_retry_can_read_errors_in_results_and_count_across_invocations():
    answers = iter([{"status": "error", "why": "full"}, {"status": "ok"}, {"status": "error", "why": "full"}])

    def reserve(day: str) -> dict:
        """Reserves a table."""
        return next(answers)

    plugin = StatusErrors(max_retries=2, tracking_scope=TrackingScope.GLOBAL)
    model = ScriptedLlm([ScriptedLlm.call("reserve", day="mon"), ScriptedLlm.call("reserve", day="tue"), "ok",
                         ScriptedLlm.call("reserve", day="wed"), "full"])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[reserve]), plugins=[plugin])
    first = responses(await send(runner, "monday"))
    assert first[0]["retry_count"] == 1 and first[1] == {"status": "ok"}  # a success resets the count
    later = responses(await send(runner, "wednesday"))
    assert later[0]["retry_count"] == 1


# -- DebugLoggingPlugin -----------------------------------------------------------------------

def documents(path) -> list[dict]:
    return [json.loads(doc) for doc in path.read_text().split("---\n") if doc.strip()]


async def test_debug_logging_writes_one_document_per_invocation(tmp_path):
    out = tmp_path / "debug.yaml"

    def lookup(term: str) -> str:
        """Looks a term up."""
        return f"{term}: a word"

    model = ScriptedLlm([ScriptedLlm.call("lookup", term="chronicle"), "It is a word.", "Bye."])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[lookup], instruction="Be brief."),
                              plugins=[DebugLoggingPlugin(output_path=str(out))],
                              state={"user:api_key": "sk-live-123", "topic": "words"})
    await send(runner, "what is chronicle?")
    await send(runner, "bye")

    first, second = documents(out)
    assert first["session_id"] == SESSION and first["user_id"] == USER
    kinds = [e["entry_type"] for e in first["entries"]]
    assert kinds[:2] == ["invocation_start", "user_message"] and kinds[-2:] == ["session_state_snapshot", "invocation_end"]
    for kind in ("agent_start", "llm_request", "llm_response", "tool_call", "tool_response", "event", "agent_end"):
        assert kind in kinds
    request = next(e for e in first["entries"] if e["entry_type"] == "llm_request")
    assert request["data"]["system_instruction"].startswith("Be brief.") and request["data"]["tools"] == ["lookup"]
    call = next(e for e in first["entries"] if e["entry_type"] == "tool_call")
    assert call["data"]["args"] == {"term": "chronicle"}
    snapshot = first["entries"][-2]["data"]["state"]
    assert snapshot == {"user:api_key": "[REDACTED]", "topic": "words"}
    assert "sk-live-123" not in out.read_text()
    assert len(second["entries"]) < len(first["entries"])
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600


# -- ContextFilterPlugin ----------------------------------------------------------------------

async def test_context_filter_keeps_the_last_invocations_and_tool_pairs():
    def weather(city: str) -> str:
        """Weather."""
        return "sunny"

    model = ScriptedLlm(["one", "two", ScriptedLlm.call("weather", city="Rome"), "three", "four"])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[weather]),
                              plugins=[ContextFilterPlugin(num_invocations_to_keep=2)])
    for text in ["q1", "q2", "q3", "q4"]:
        await send(runner, text)
    assert content_texts(model.requests[2].contents) == ["user:q2", "model:two", "user:q3"]
    assert content_texts(model.requests[3].contents) == [
        "user:q2", "model:two", "user:q3", "model:call:weather", "user:result:weather"]
    assert content_texts(model.requests[4].contents) == [
        "user:q3", "model:call:weather", "user:result:weather", "model:three", "user:q4"]
    session = await stored(runner)
    assert len(session.events) == 10  # the log keeps everything


async def test_context_filter_custom_filter():
    model = ScriptedLlm(["a", "b"])
    runner = await new_runner(LlmAgent(name="a", model=model),
                              plugins=[ContextFilterPlugin(custom_filter=lambda contents: contents[-1:])])
    await send(runner, "first")
    await send(runner, "second")
    assert content_texts(model.requests[1].contents) == ["user:second"]


# -- SaveFilesAsArtifactsPlugin ---------------------------------------------------------------

async def test_uploaded_files_become_artifacts(store_url):
    sessions = session_service_from_url(store_url)
    artifacts = artifact_service_from_url(store_url)
    await sessions.create_session(app_name="app", user_id=USER, session_id=SESSION)
    model = ScriptedLlm(["Got it."])
    runner = Runner(agent=LlmAgent(name="a", model=model), app_name="app", session_service=sessions,
                    artifact_service=artifacts, plugins=[SaveFilesAsArtifactsPlugin()])
    message = types.Content(role="user", parts=[
        types.Part(text="Here is my report"),
        types.Part(inline_data=types.Blob(data=b"quarterly numbers", mime_type="text/plain", display_name="report.txt")),
        types.Part(inline_data=types.Blob(data=b"\x89PNG", mime_type="image/png")),
    ])
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]
    assert texts(events) == ["Got it."]
    scope = dict(app_name="app", user_id=USER, session_id=SESSION)
    assert (await artifacts.load_artifact(**scope, filename="report.txt")).inline_data.data == b"quarterly numbers"
    keys = await artifacts.list_artifact_keys(**scope)
    generated = next(k for k in keys if k != "report.txt")
    assert generated.startswith("artifact_") and generated.endswith("_2")
    session = await sessions.get_session(app_name="app", user_id=USER, session_id=SESSION)
    user_event = session.events[0]
    assert [p.text for p in user_event.content.parts] == [
        "Here is my report", '[Uploaded Artifact: "report.txt"]', f'[Uploaded Artifact: "{generated}"]']
    assert "quarterly" not in json.dumps(user_event.to_json_dict())  # no bytes in the log
    recorded = {k: v for e in session.events for k, v in e.actions.artifact_delta.items()}
    assert recorded == {"report.txt": 0, generated: 0}
    assert "[Uploaded Artifact" in content_texts(model.requests[0].contents)[1]
    await runner.close()


# -- GlobalInstructionPlugin ------------------------------------------------------------------

async def test_global_instruction_comes_first_in_every_agents_request():
    model = ScriptedLlm(["Hello!"])
    runner = await new_runner(LlmAgent(name="a", model=model, instruction="Greet the user."),
                              plugins=[GlobalInstructionPlugin("Always be {tone}.")], state={"tone": "kind"})
    await send(runner, "hi")
    instruction = str(model.requests[0].config.system_instruction)
    assert instruction.startswith("Always be kind.\n\nGreet the user.")

    async def provider(ctx) -> str:
        return f"You serve {ctx.user_id}."

    model = ScriptedLlm(["Hello!"])
    runner = await new_runner(LlmAgent(name="b", model=model), plugins=[GlobalInstructionPlugin(provider)])
    await send(runner, "hi")
    assert str(model.requests[0].config.system_instruction).startswith(f"You serve {USER}.")


# -- MultimodalToolResultsPlugin --------------------------------------------------------------

def chart(kind: str) -> list[types.Part]:
    """Draws a chart."""
    return [types.Part(text=f"A {kind} chart:"), types.Part.from_bytes(data=b"\x89PNG-chart", mime_type="image/png")]


async def test_parts_returned_by_a_tool_go_to_the_next_model_call():
    model = ScriptedLlm([ScriptedLlm.call("chart", kind="bar"), "A bar chart.", "ok"])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[chart]), plugins=[MultimodalToolResultsPlugin()])
    events = await send(runner, "draw")
    after_tool = model.requests[1].contents[-1].parts
    assert after_tool[0].function_response is not None
    assert after_tool[1].text == "A bar chart:" and after_tool[2].inline_data.data == b"\x89PNG-chart"
    assert "PNG-chart" not in json.dumps((await stored(runner)).events[2].to_json_dict())  # no bytes in the log
    assert responses(events)[0] == {"result": "The tool returned 2 part(s), attached to this message."}
    await send(runner, "thanks")
    assert not any(p.inline_data for c in model.requests[2].contents for p in c.parts or [])


async def test_session_retention_keeps_text_and_file_parts_for_later_calls():
    model = ScriptedLlm([ScriptedLlm.call("chart", kind="pie"), "A pie.", "Still a pie."])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[chart]),
                              plugins=[MultimodalToolResultsPlugin(retention="session")])
    await send(runner, "draw")
    await send(runner, "what was it?")
    later = model.requests[2].contents[-1].parts
    assert [p.text for p in later] == ["what was it?", "A pie chart:"]  # the image was one-shot
    with pytest.raises(Exception, match="retention"):
        MultimodalToolResultsPlugin(retention="forever")
