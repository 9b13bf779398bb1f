"""Plugins: every hook, their order relative to agent callbacks, first result wins, replacements."""

from __future__ import annotations

import logging

import pytest
from google.genai import types

from domain.events import Event
from runtime import (
    App,
    BasePlugin,
    InMemoryRunner,
    LlmAgent,
    LlmResponse,
    LoggingPlugin,
    PluginError,
    PluginManager,
    ScriptedLlm,
)
from tests.rt_helpers import SESSION, USER, send, stored, texts


def text_content(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


class Journal(BasePlugin):
    """Records every hook it sees."""

    def __init__(self, name: str, log: list):
        super().__init__(name)
        self.log = log

    def _note(self, hook, detail=""):
        self.log.append(f"{self.name}:{hook}{detail}")

    async def on_user_message_callback(self, *, invocation_context, user_message):
        self._note("on_user_message")

    async def before_run_callback(self, *, invocation_context):
        self._note("before_run")

    async def on_event_callback(self, *, invocation_context, event):
        self._note("on_event", f"({event.author})")

    async def after_run_callback(self, *, invocation_context):
        self._note("after_run")

    async def before_agent_callback(self, *, agent, callback_context):
        self._note("before_agent", f"({agent.name})")

    async def after_agent_callback(self, *, agent, callback_context):
        self._note("after_agent", f"({agent.name})")

    async def before_model_callback(self, *, callback_context, llm_request):
        self._note("before_model")

    async def after_model_callback(self, *, callback_context, llm_response):
        self._note("after_model")

    async def before_tool_callback(self, *, tool, tool_args, tool_context):
        self._note("before_tool", f"({tool.name})")

    async def after_tool_callback(self, *, tool, tool_args, tool_context, result):
        self._note("after_tool", f"({tool.name})")


async def runner_for(agent, plugins) -> InMemoryRunner:
    runner = InMemoryRunner(app=App(name="plugin_app", root_agent=agent, plugins=plugins))
    await runner.session_service.create_session(app_name="plugin_app", user_id=USER, session_id=SESSION)
    return runner


async def test_hooks_run_in_order_and_before_the_agents_own_callbacks():
    log: list[str] = []

    def tool() -> str:
        return "ok"

    agent = LlmAgent(
        name="a",
        model=ScriptedLlm([ScriptedLlm.call("tool"), "done"]),
        tools=[tool],
        before_agent_callback=lambda callback_context: log.append("agent:before_agent"),
        before_model_callback=lambda callback_context, llm_request: log.append("agent:before_model"),
        before_tool_callback=lambda tool, args, tool_context: log.append("agent:before_tool"),
    )
    runner = await runner_for(agent, [Journal("p", log)])
    await send(runner, "go")
    assert log == [
        "p:on_user_message",
        "p:before_run",
        "p:before_agent(a)",
        "agent:before_agent",
        "p:before_model",
        "agent:before_model",
        "p:after_model",
        "p:on_event(a)",
        "p:before_tool(tool)",
        "agent:before_tool",
        "p:after_tool(tool)",
        "p:on_event(a)",
        "p:before_model",
        "agent:before_model",
        "p:after_model",
        "p:on_event(a)",
        "p:after_agent(a)",
        "p:after_run",
    ]


async def test_first_plugin_result_wins_and_skips_the_rest_and_the_agent_callbacks():
    calls = []

    class Cache(BasePlugin):
        async def before_model_callback(self, *, callback_context, llm_request):
            calls.append(self.name)
            if self.name == "cache":
                return LlmResponse(content=text_content("cached answer"))

    model = ScriptedLlm([])
    agent = LlmAgent(name="a", model=model, before_model_callback=lambda **_: calls.append("agent"))
    runner = await runner_for(agent, [Cache("quiet"), Cache("cache"), Cache("never")])
    assert texts(await send(runner, "q")) == ["cached answer"]
    assert calls == ["quiet", "cache"] and model.requests == []


async def test_on_event_replacement_is_what_is_stored_and_yielded():
    class Redactor(BasePlugin):
        async def on_event_callback(self, *, invocation_context, event: Event):
            if event.author != "user" and "password" in event.text():
                return event.model_copy(update={"content": text_content("[removed]")})

    runner = await runner_for(LlmAgent(name="a", model=ScriptedLlm(["the password is hunter2"])), [Redactor("r")])
    events = await send(runner, "q")
    assert texts(events) == ["[removed]"]
    assert (await stored(runner)).events[-1].text() == "[removed]"


async def test_on_user_message_can_replace_the_message_before_it_is_stored():
    class Normalize(BasePlugin):
        async def on_user_message_callback(self, *, invocation_context, user_message):
            return types.Content(role="user", parts=[types.Part(text=user_message.parts[0].text.upper())])

    model = ScriptedLlm(["ok"])
    runner = await runner_for(LlmAgent(name="a", model=model), [Normalize("n")])
    await send(runner, "hello")
    assert (await stored(runner)).events[0].text() == "HELLO"
    assert model.requests[0].contents[0].parts[0].text == "HELLO"


async def test_before_run_content_answers_without_running_the_agent():
    class Maintenance(BasePlugin):
        async def before_run_callback(self, *, invocation_context):
            return text_content("Down for maintenance.")

    model = ScriptedLlm([])
    runner = await runner_for(LlmAgent(name="a", model=model), [Maintenance("m")])
    events = await send(runner, "q")
    assert texts(events) == ["Down for maintenance."] and model.requests == []
    assert [e.author for e in (await stored(runner)).events] == ["user", "model"]


async def test_plugin_tool_hooks_short_circuit_and_handle_errors():
    class Guard(BasePlugin):
        async def before_tool_callback(self, *, tool, tool_args, tool_context):
            if tool.name == "dangerous":
                return {"error": "blocked by policy"}

        async def on_tool_error_callback(self, *, tool, tool_args, tool_context, error):
            return {"error": f"recovered: {error}"}

    ran = []

    def dangerous() -> str:
        ran.append("dangerous")
        return "boom"

    def broken() -> str:
        raise RuntimeError("oops")

    model = ScriptedLlm([ScriptedLlm.calls(("dangerous", {}), ("broken", {})), "done"])
    runner = await runner_for(LlmAgent(name="a", model=model, tools=[dangerous, broken]), [Guard("g")])
    events = await send(runner, "go")
    assert ran == []
    assert [r.response for r in events[1].get_function_responses()] == [
        {"error": "blocked by policy"},
        {"error": "recovered: oops"},
    ]


async def test_plugin_agent_hook_short_circuits_the_agent():
    class Skip(BasePlugin):
        async def before_agent_callback(self, *, agent, callback_context):
            return text_content(f"{agent.name} is disabled")

    model = ScriptedLlm([])
    runner = await runner_for(LlmAgent(name="a", model=model), [Skip("s")])
    assert texts(await send(runner, "q")) == ["a is disabled"] and model.requests == []


async def test_plugin_failures_name_the_plugin_and_hook():
    class Broken(BasePlugin):
        async def before_model_callback(self, *, callback_context, llm_request):
            raise KeyError("nope")

    runner = await runner_for(LlmAgent(name="a", model=ScriptedLlm(["x"])), [Broken("broken")])
    with pytest.raises(PluginError, match="Error in plugin 'broken' during 'before_model_callback' callback"):
        await send(runner, "q")


def test_plugin_names_must_be_unique_and_plugins_must_subclass_base_plugin():
    manager = PluginManager([BasePlugin("a")])
    with pytest.raises(ValueError, match="already registered"):
        manager.register_plugin(BasePlugin("a"))
    with pytest.raises(ValueError):
        manager.register_plugin(object())
    assert manager.get_plugin("a").name == "a" and manager.get_plugin("b") is None


async def test_logging_plugin_reports_each_step(capsys, caplog):
    def tool() -> str:
        return "ok"

    agent = LlmAgent(name="a", model=ScriptedLlm([ScriptedLlm.call("tool"), "done"]), tools=[tool])
    runner = await runner_for(agent, [LoggingPlugin()])
    await send(runner, "hello")
    out = capsys.readouterr().out
    for expected in ["user message", "run starts", "agent a starts", "model scripted called by a",
                     "tool tool called", "tool tool returned", "model answered: done", "run ends"]:
        assert expected in out, expected

    logger = logging.getLogger("test.logging_plugin")
    runner = await runner_for(LlmAgent(name="b", model=ScriptedLlm(["hi"])), [LoggingPlugin(logger=logger)])
    with caplog.at_level(logging.INFO, logger="test.logging_plugin"):
        await send(runner, "hello")
    assert any("agent b starts" in r.getMessage() for r in caplog.records)
    assert capsys.readouterr().out == ""
