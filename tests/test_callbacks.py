"""Agent, model and tool callbacks: short-circuits, replacements, state, lists, sync and async."""

from __future__ import annotations

import threading

import pytest
from google.genai import types

from runtime import CallbackContext, LlmAgent, LlmRequest, LlmResponse, ScriptedLlm, SequentialAgent, ToolContext
from tests.rt_helpers import content_texts, new_runner, send, stored, texts


def text_content(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


async def test_before_agent_callback_returning_content_skips_the_agent():
    model = ScriptedLlm(["never"])

    def gate(callback_context: CallbackContext):
        callback_context.state["gated"] = True
        return text_content("Closed today.")

    runner = await new_runner(LlmAgent(name="a", model=model, before_agent_callback=gate))
    events = await send(runner, "hi")
    assert texts(events) == ["Closed today."] and model.requests == []
    assert events[0].author == "a" and events[0].actions.state_delta == {"gated": True}
    assert (await stored(runner)).state["gated"] is True


async def test_skipped_agent_does_not_stop_its_siblings():
    first = LlmAgent(name="first", model=ScriptedLlm([]), before_agent_callback=lambda callback_context: text_content("skipped"))
    second = LlmAgent(name="second", model=ScriptedLlm(["second ran"]))
    runner = await new_runner(SequentialAgent(name="seq", sub_agents=[first, second]))
    assert texts(await send(runner, "go")) == ["skipped", "second ran"]


async def test_before_agent_state_only_change_is_its_own_event_and_the_agent_runs():
    def setup(callback_context: CallbackContext):
        callback_context.state["setup"] = "done"

    model = ScriptedLlm(["ran"])
    runner = await new_runner(LlmAgent(name="a", model=model, before_agent_callback=setup, instruction="{setup}"))
    events = await send(runner, "go")
    assert events[0].content is None and events[0].actions.state_delta == {"setup": "done"}
    assert texts(events) == ["ran"]
    assert model.requests[0].config.system_instruction.startswith("done")


async def test_after_agent_callback_adds_a_final_event():
    async def sign_off(callback_context: CallbackContext):
        return text_content(f"(answered by {callback_context.agent_name})")

    runner = await new_runner(LlmAgent(name="a", model=ScriptedLlm(["answer"]), after_agent_callback=sign_off))
    assert texts(await send(runner, "q")) == ["answer", "(answered by a)"]


async def test_callback_lists_stop_at_the_first_non_none_result():
    calls = []

    def first(callback_context, llm_request):
        calls.append("first")

    def second(callback_context, llm_request):
        calls.append("second")
        return LlmResponse(content=text_content("from second"))

    def third(callback_context, llm_request):
        calls.append("third")
        return LlmResponse(content=text_content("from third"))

    model = ScriptedLlm([])
    runner = await new_runner(LlmAgent(name="a", model=model, before_model_callback=[first, second, third]))
    assert texts(await send(runner, "q")) == ["from second"]
    assert calls == ["first", "second"] and model.requests == []


async def test_before_model_callback_can_edit_the_request_without_corrupting_history():
    def add_note(callback_context, llm_request: LlmRequest):
        llm_request.contents[-1].parts.append(types.Part(text="(be polite)"))
        llm_request.append_instructions(["Extra rule."])

    model = ScriptedLlm(["one", "two"])
    runner = await new_runner(LlmAgent(name="a", model=model, before_model_callback=add_note))
    await send(runner, "q1")
    await send(runner, "q2")
    assert content_texts(model.requests[0].contents) == ["user:q1", "user:(be polite)"]
    assert content_texts(model.requests[1].contents) == ["user:q1", "model:one", "user:q2", "user:(be polite)"]
    assert model.requests[1].config.system_instruction.endswith("Extra rule.")
    session = await stored(runner)
    assert [len(e.content.parts) for e in session.events] == [1, 1, 1, 1]


async def test_after_model_callback_replaces_the_response_and_its_state_is_committed():
    def redact(callback_context: CallbackContext, llm_response: LlmResponse):
        callback_context.state["redacted"] = True
        text = llm_response.content.parts[0].text.replace("secret", "[redacted]")
        return LlmResponse(content=text_content(text))

    runner = await new_runner(LlmAgent(name="a", model=ScriptedLlm(["the secret is 42"]), after_model_callback=redact))
    events = await send(runner, "q")
    assert texts(events) == ["the [redacted] is 42"]
    assert events[0].actions.state_delta == {"redacted": True}
    assert (await stored(runner)).events[-1].text() == "the [redacted] is 42"


async def test_on_model_error_callback_recovers():
    def failing(llm_request):
        raise ConnectionError("model down")

    def fallback(callback_context, llm_request, error):
        return LlmResponse(content=text_content(f"Sorry ({error})"))

    runner = await new_runner(LlmAgent(name="a", model=ScriptedLlm([failing]), on_model_error_callback=fallback))
    assert texts(await send(runner, "q")) == ["Sorry (model down)"]
    runner2 = await new_runner(LlmAgent(name="b", model=ScriptedLlm([failing])))
    with pytest.raises(ConnectionError):
        await send(runner2, "q")


async def test_before_tool_callback_short_circuits_and_after_tool_still_applies():
    ran = []

    def charge(amount: int) -> dict:
        ran.append(amount)
        return {"charged": amount}

    def guard(tool, args, tool_context: ToolContext):
        if args["amount"] > 100:
            tool_context.state["blocked"] = args["amount"]
            return {"error": "amount too large"}

    def stamp(tool, args, tool_context, tool_response):
        return {**tool_response, "checked_by": "policy"}

    model = ScriptedLlm([ScriptedLlm.calls(("charge", {"amount": 500}), ("charge", {"amount": 5})), "done"])
    runner = await new_runner(
        LlmAgent(name="a", model=model, tools=[charge], before_tool_callback=guard, after_tool_callback=stamp)
    )
    events = await send(runner, "pay")
    assert ran == [5]
    assert [r.response for r in events[1].get_function_responses()] == [
        {"error": "amount too large", "checked_by": "policy"},
        {"charged": 5, "checked_by": "policy"},
    ]
    assert events[1].actions.state_delta == {"blocked": 500}


async def test_on_tool_error_callback_turns_an_exception_into_a_result():
    def flaky() -> str:
        raise TimeoutError("upstream timed out")

    async def handle(tool, args, tool_context, error):
        return {"error": f"{tool.name} failed: {error}"}

    model = ScriptedLlm([ScriptedLlm.call("flaky"), ScriptedLlm.call("missing_tool"), "gave up"])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[flaky], on_tool_error_callback=handle))
    events = await send(runner, "go")
    assert events[1].get_function_responses()[0].response == {"error": "flaky failed: upstream timed out"}
    assert "does not have" in events[3].get_function_responses()[0].response["error"]
    assert texts(events) == ["gave up"]


async def test_sync_and_async_callbacks_run_on_the_loop_as_in_google_adk():
    seen = {}

    def sync_cb(callback_context, llm_request):
        seen["sync"] = threading.get_ident()

    async def async_cb(callback_context, llm_response):
        seen["async"] = threading.get_ident()

    runner = await new_runner(
        LlmAgent(name="a", model=ScriptedLlm(["x"]), before_model_callback=sync_cb, after_model_callback=async_cb)
    )
    await send(runner, "q")
    assert seen["async"] == threading.get_ident() == seen["sync"]


async def test_callback_returning_the_wrong_type_is_a_clear_error():
    runner = await new_runner(LlmAgent(name="a", model=ScriptedLlm([]), before_model_callback=lambda **_: "text"))
    with pytest.raises(ValueError, match="return an LlmResponse"):
        await send(runner, "q")


async def test_callback_context_artifacts_need_an_artifact_service():
    from runtime import InMemorySessionService, Runner, ServiceNotConfiguredError

    async def save(callback_context: CallbackContext):
        await callback_context.save_artifact("report.txt", types.Part(text="hello"))

    agent = LlmAgent(name="a", model=ScriptedLlm(["x"]), before_agent_callback=save)
    service = InMemorySessionService()
    runner = Runner(app_name="app", agent=agent, session_service=service)
    await service.create_session(app_name="app", user_id="u1", session_id="s1")
    with pytest.raises(ServiceNotConfiguredError, match="Artifact service is not initialized"):
        await send(runner, "q")


async def test_callback_context_saves_artifacts_into_the_event():
    import runtime.artifacts as artifacts

    async def save(callback_context: CallbackContext):
        version = await callback_context.save_artifact("report.txt", types.Part(text="hello"))
        callback_context.state["report_version"] = version

    runner = await new_runner(LlmAgent(name="a", model=ScriptedLlm(["x"]), before_agent_callback=save))
    events = await send(runner, "q")
    assert events[0].actions.artifact_delta == {"report.txt": 0}
    loaded = await runner.artifact_service.load_artifact(
        app_name=runner.app_name, user_id="u1", session_id="s1", filename="report.txt"
    )
    assert loaded.text == "hello"
