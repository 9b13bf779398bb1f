"""Errors as events (ADK 2.13): a model or tool exception goes to the error callbacks, which may
recover it; if none does, the plugins hear of it (on_agent_error, on_run_error), a root LlmAgent's
failure is recorded in the log as an event with `error_code`/`error_message`, and the exception is
raised. The record stays out of later prompts, and so do calls left without a result."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncGenerator, Optional

import pytest
from google.genai import types

from domain.events import Event
from runtime import (
    App,
    BaseAgent,
    BasePlugin,
    InvocationContext,
    LlmAgent,
    ResumabilityConfig,
    Runner,
    ScriptedLlm,
    SequentialAgent,
    session_service_from_url,
)
from runtime.events.error_events import error_code_of
from runtime.models import LlmResponse
from tests.rt_helpers import APP, SESSION, USER, content_texts, send, stored, user_msg


class Boom(Exception):
    pass


def explode(message: str):
    """A scripted turn whose model call raises."""

    def turn(llm_request: Any) -> Any:
        raise Boom(message)

    return turn


class Listener(BasePlugin):
    """Records, in one shared list, each error hook and each event it is shown."""

    def __init__(self, name: str, heard: list[str]):
        super().__init__(name)
        self.heard = heard

    async def on_model_error_callback(self, *, callback_context, llm_request, error):
        self.heard.append(f"{self.name}:on_model_error:{type(error).__name__}")

    async def on_tool_error_callback(self, *, tool, tool_args, tool_context, error):
        self.heard.append(f"{self.name}:on_tool_error:{tool.name}:{type(error).__name__}")

    async def on_agent_error_callback(self, *, agent, callback_context, error):
        self.heard.append(f"{self.name}:on_agent_error:{agent.name}:{type(error).__name__}")

    async def on_run_error_callback(self, *, invocation_context, error):
        self.heard.append(f"{self.name}:on_run_error:{type(error).__name__}")

    async def on_event_callback(self, *, invocation_context, event):
        if event.error_code:
            self.heard.append(f"{self.name}:on_event:{event.error_code}")


async def runner_on(store_url: str, agent: BaseAgent, plugins: list[BasePlugin] = (), **app: Any) -> Runner:
    service = session_service_from_url(store_url)
    await service.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    if app:
        return Runner(app=App(name=APP, root_agent=agent, plugins=list(plugins), **app), session_service=service)
    return Runner(app_name=APP, agent=agent, plugins=list(plugins), session_service=service)


async def send_until_error(runner: Runner, text: str) -> tuple[list[Event], BaseException]:
    events: list[Event] = []
    with pytest.raises(Exception) as raised:
        async for event in runner.run_async(user_id=USER, session_id=SESSION, new_message=user_msg(text)):
            events.append(event)
    return events, raised.value


async def logged(runner: Runner, store_url: str) -> list[Event]:
    """The session's events as a fresh service on the same store reads them (the log, not a cache)."""
    if store_url == "memory://":
        return (await stored(runner)).events
    service = session_service_from_url(store_url)
    try:
        return (await service.get_session(app_name=APP, user_id=USER, session_id=SESSION)).events
    finally:
        await service.close()


# -- a model error -----------------------------------------------------------------------------


async def test_an_unrecovered_model_error_is_recorded_then_raised_and_kept_out_of_the_next_prompt(store_url):
    heard: list[str] = []
    model = ScriptedLlm([explode("model down"), "back again"])

    def agent_hook(callback_context, llm_request, error):
        heard.append(f"agent:on_model_error:{type(error).__name__}")

    agent = LlmAgent(name="a", model=model, on_model_error_callback=agent_hook)
    runner = await runner_on(store_url, agent, [Listener("p1", heard), Listener("p2", heard)])

    events, error = await send_until_error(runner, "go")

    assert isinstance(error, Boom) and str(error) == "model down"  # the original exception
    # The same order as google-adk 2.13: model-error hooks, agent-error, the event, run-error.
    assert heard == [
        "p1:on_model_error:Boom", "p2:on_model_error:Boom", "agent:on_model_error:Boom",
        "p1:on_agent_error:a:Boom", "p2:on_agent_error:a:Boom",
        "p1:on_event:Boom", "p2:on_event:Boom",
        "p1:on_run_error:Boom", "p2:on_run_error:Boom",
    ]
    [failure] = events
    assert (failure.author, failure.error_code, failure.error_message, failure.content) == ("a", "Boom", "model down", None)
    log = await logged(runner, store_url)
    assert [(e.author, e.error_code) for e in log] == [("user", None), ("a", "Boom")]
    assert log[-1].id == failure.id and log[-1].invocation_id == log[0].invocation_id

    # The next turn: the same agent answers, and its prompt has no trace of the failure.
    assert [e.text() for e in await send(runner, "again")] == ["back again"]
    assert content_texts(model.requests[-1].contents) == ["user:go", "user:again"]
    await runner.session_service.close()


async def test_a_recovered_model_error_leaves_no_error_event(store_url):
    heard: list[str] = []

    class Recover(BasePlugin):
        async def on_model_error_callback(self, *, callback_context, llm_request, error):
            return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=f"sorry: {error}")]))

    agent = LlmAgent(name="a", model=ScriptedLlm([explode("flaky")]))
    runner = await runner_on(store_url, agent, [Recover("recover"), Listener("p1", heard)])
    events = await send(runner, "go")
    assert [(e.text(), e.error_code) for e in events] == [("sorry: flaky", None)]
    assert heard == []  # later plugins are not asked, and nothing escaped
    assert [(e.author, e.error_code) for e in await logged(runner, store_url)] == [("user", None), ("a", None)]
    await runner.session_service.close()


# -- a tool error ------------------------------------------------------------------------------


async def test_an_unrecovered_tool_error_is_recorded_and_its_call_left_out_of_the_next_prompt(store_url):
    heard: list[str] = []

    def lookup(city: str) -> dict:
        raise Boom(f"no weather for {city}")

    model = ScriptedLlm([ScriptedLlm.call("lookup", city="Paris"), "never played", "fine"])
    agent = LlmAgent(name="a", model=model, tools=[lookup])
    runner = await runner_on(store_url, agent, [Listener("p1", heard)])
    events, error = await send_until_error(runner, "weather?")
    assert isinstance(error, Boom)
    assert heard == ["p1:on_tool_error:lookup:Boom", "p1:on_agent_error:a:Boom", "p1:on_event:Boom", "p1:on_run_error:Boom"]
    assert events[-1].error_code == "Boom" and events[-1].error_message == "no weather for Paris"
    log = await logged(runner, store_url)
    assert [(e.author, bool(e.get_function_calls()), e.error_code) for e in log] == [
        ("user", False, None), ("a", True, None), ("a", False, "Boom"),
    ]
    model.turns.pop(1)
    await send(runner, "and now?")
    # A call without its result would be refused by the model: it is left out (the log keeps it).
    assert content_texts(model.requests[-1].contents) == ["user:weather?", "user:and now?"]
    await runner.session_service.close()


async def test_an_agent_tool_error_callback_recovers_the_call():
    def lookup() -> dict:
        raise Boom("down")

    def fallback(tool, args, tool_context, error):
        return {"error": f"{tool.name} failed: {error}"}

    model = ScriptedLlm([ScriptedLlm.call("lookup"), "handled"])
    agent = LlmAgent(name="a", model=model, tools=[lookup], on_tool_error_callback=fallback)
    runner = await runner_on("memory://", agent)
    events = await send(runner, "go")
    assert [e.error_code for e in events] == [None, None, None]
    assert events[1].get_function_responses()[0].response == {"error": "lookup failed: down"}


# -- parallel tools ----------------------------------------------------------------------------


@pytest.mark.parametrize("resumable", [False, True])
async def test_when_one_parallel_tool_raises_the_others_are_cancelled_and_the_log_records_it(store_url, resumable):
    heard: list[str] = []
    slow_started = asyncio.Event()
    cancelled: list[str] = []

    async def fast() -> dict:
        return {"fast": "done"}

    async def slow() -> dict:
        slow_started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append("slow")
            raise
        return {"slow": "done"}

    async def bad() -> dict:
        await slow_started.wait()
        await asyncio.sleep(0.05)  # fast has finished by now
        raise Boom("bad tool")

    model = ScriptedLlm([ScriptedLlm.calls(("fast", {}), ("bad", {}), ("slow", {})), "recovered"])
    agent = LlmAgent(name="a", model=model, tools=[fast, bad, slow])
    app = {"resumability_config": ResumabilityConfig(is_resumable=True)} if resumable else {}
    runner = await runner_on(store_url, agent, [Listener("p1", heard)], **app)

    started = asyncio.get_running_loop().time()
    events, error = await send_until_error(runner, "go")
    assert asyncio.get_running_loop().time() - started < 10  # slow did not run on
    assert isinstance(error, Boom)
    assert cancelled == ["slow"]
    # The cancelled call's error callbacks hear of it (for cleanup), after the one that raised.
    assert heard[:2] == ["p1:on_tool_error:bad:Boom", "p1:on_tool_error:slow:CancelledError"]
    assert heard[2:] == ["p1:on_agent_error:a:Boom", "p1:on_event:Boom", "p1:on_run_error:Boom"]

    log = [e for e in await logged(runner, store_url) if not e.actions.agent_state and not e.actions.end_of_agent]
    assert [e.id for e in log[1:]] == [e.id for e in events if not e.actions.agent_state and not e.actions.end_of_agent]
    call, result, failure = log[1:]
    assert [c.name for c in call.get_function_calls()] == ["fast", "bad", "slow"]
    # The call that finished keeps its result; the one that raised and the cancelled one have none.
    assert [(r.name, r.response) for r in result.get_function_responses()] == [("fast", {"fast": "done"})]
    assert (failure.error_code, failure.error_message) == ("Boom", "bad tool")

    await send(runner, "again")
    assert content_texts(model.requests[-1].contents) == [
        "user:go", "model:call:fast", "user:result:fast", "user:again",
    ]
    await runner.session_service.close()


# -- other agents, hooks and replacements ------------------------------------------------------


async def test_roots_that_are_not_llm_agents_record_no_error_event_as_in_adk():
    heard: list[str] = []

    class Custom(BaseAgent):
        async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
            yield Event(invocation_id=ctx.invocation_id, author=self.name,
                        content=types.Content(role="model", parts=[types.Part(text="half")]))
            raise Boom("custom")

    inner = LlmAgent(name="inner", model=ScriptedLlm([explode("inner")]))
    for root, expected in [
        (Custom(name="c"), ["p1:on_agent_error:c:Boom"]),
        (SequentialAgent(name="seq", sub_agents=[inner]),
         ["p1:on_model_error:Boom", "p1:on_agent_error:inner:Boom", "p1:on_agent_error:seq:Boom"]),
    ]:
        heard.clear()
        runner = await runner_on("memory://", root, [Listener("p1", heard)])
        events, error = await send_until_error(runner, "go")
        assert isinstance(error, Boom)
        assert heard == [*expected, "p1:on_run_error:Boom"]
        assert not any(e.error_code for e in (await stored(runner)).events)


async def test_a_failing_notification_hook_neither_hides_the_error_nor_silences_other_plugins(caplog):
    heard: list[str] = []

    class Broken(BasePlugin):
        async def on_agent_error_callback(self, **kwargs):
            raise RuntimeError("hook broke")

        async def on_run_error_callback(self, **kwargs):
            raise RuntimeError("hook broke")

    agent = LlmAgent(name="a", model=ScriptedLlm([explode("model down")]))
    runner = await runner_on("memory://", agent, [Broken("broken"), Listener("p1", heard)])
    _, error = await send_until_error(runner, "go")
    assert isinstance(error, Boom)
    assert "p1:on_agent_error:a:Boom" in heard and "p1:on_run_error:Boom" in heard
    assert "broken" in caplog.text and "on_run_error_callback" in caplog.text


async def test_an_error_in_before_agent_callback_is_recorded_too():
    def before(callback_context):
        raise Boom("callback broke")

    agent = LlmAgent(name="a", model=ScriptedLlm(["never"]), before_agent_callback=before)
    runner = await runner_on("memory://", agent)
    events, error = await send_until_error(runner, "go")
    assert isinstance(error, Boom)
    assert [(e.author, e.error_code, e.error_message) for e in events] == [("a", "Boom", "callback broke")]


async def test_a_failed_transfer_target_still_owns_the_next_turn(store_url):
    helper = LlmAgent(name="helper", description="helps", model=ScriptedLlm([explode("helper down"), "helper here"]))
    root_model = ScriptedLlm([ScriptedLlm.call("transfer_to_agent", agent_name="helper")])
    root = LlmAgent(name="root", model=root_model, sub_agents=[helper])
    runner = await runner_on(store_url, root)
    events, error = await send_until_error(runner, "help me")
    assert isinstance(error, Boom)
    # ADK records the failure under the agent the invocation started with.
    assert (events[-1].author, events[-1].error_code) == ("root", "Boom")
    assert [e.text() for e in await send(runner, "still there?")] == ["helper here"]
    await runner.session_service.close()


async def test_the_sync_runner_raises_in_the_caller_after_yielding_the_error_event():
    agent = LlmAgent(name="a", model=ScriptedLlm([explode("sync down")]))
    runner = await runner_on("memory://", agent)
    seen: list[Optional[str]] = []

    def consume() -> None:
        for event in runner.run(user_id=USER, session_id=SESSION, new_message=user_msg("go")):
            seen.append(event.error_code)

    with pytest.raises(Boom, match="sync down"):
        await asyncio.to_thread(consume)
    assert seen == ["Boom"]


async def test_a_replacement_event_keeps_the_originals_identity_and_unset_fields(store_url):
    class Redact(BasePlugin):
        async def on_event_callback(self, *, invocation_context, event):
            if event.author == "a":
                return Event(content=types.Content(role="model", parts=[types.Part(text="[redacted]")]))

    class Rename(BasePlugin):
        async def on_event_callback(self, *, invocation_context, event):
            return Event(author="auditor", invocation_id="made-up", custom_metadata={"seen": True})

    runner = await runner_on(store_url, LlmAgent(name="a", model=ScriptedLlm(["secret"])), [Redact("redact")])
    [event] = await send(runner, "go")
    [user, stored_event] = await logged(runner, store_url)
    assert (stored_event.id, stored_event.author, stored_event.invocation_id) == (event.id, "a", user.invocation_id)
    assert stored_event.text() == "[redacted]" and stored_event.turn_complete == event.turn_complete

    # A field the replacement sets wins, the author too; its id and invocation id never do.
    runner = await runner_on("memory://", LlmAgent(name="a", model=ScriptedLlm(["kept"])), [Rename("rename")])
    [event] = await send(runner, "go")
    assert (event.author, event.text(), event.custom_metadata) == ("auditor", "kept", {"seen": True})
    assert event.invocation_id != "made-up"
    await runner.session_service.close()


def test_the_error_code_is_the_class_name_or_the_apis_status():
    class ApiError(Exception):
        status = "RESOURCE_EXHAUSTED"

    class HttpError(Exception):
        status = 429

    assert error_code_of(Boom("x")) == "Boom"
    assert error_code_of(ApiError()) == "RESOURCE_EXHAUSTED"
    assert error_code_of(HttpError()) == "HttpError"


async def test_resuming_a_failed_invocation_does_not_rerun_the_failed_calls(store_url):
    # A crash leaves calls unrun, and a resume runs them (tests/test_resume_crash.py); a failure is
    # recorded, so the calls it ended are finished: as in ADK 2.13, the model goes on without them.
    runs: list[str] = []

    async def fast() -> dict:
        runs.append("fast")
        return {"fast": "done"}

    async def bad() -> dict:
        runs.append("bad")
        await asyncio.sleep(0.05)
        raise Boom("bad tool")

    model = ScriptedLlm([ScriptedLlm.calls(("fast", {}), ("bad", {})), "went on"])
    agent = LlmAgent(name="a", model=model, tools=[fast, bad])
    runner = await runner_on(store_url, agent, resumability_config=ResumabilityConfig(is_resumable=True))
    events, _ = await send_until_error(runner, "go")
    invocation_id = events[0].invocation_id

    resumed = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, invocation_id=invocation_id)]
    assert runs == ["fast", "bad"]  # nothing ran again
    assert [e.text() for e in resumed if e.text()] == ["went on"]
    assert resumed[-1].actions.end_of_agent
    assert content_texts(model.requests[-1].contents) == ["user:go", "model:call:fast", "user:result:fast"]
    log = await logged(runner, store_url)
    assert [e.error_code for e in log if e.error_code] == ["Boom"]
    await runner.session_service.close()


async def test_a_failing_plugin_hook_before_the_agent_runs_is_reported_but_not_recorded():
    heard: list[str] = []

    class Refuses(BasePlugin):
        def __init__(self, name: str, hook: str):
            super().__init__(name)
            self.hook = hook

        async def on_user_message_callback(self, *, invocation_context, user_message):
            if self.hook == "on_user_message":
                raise Boom("no messages today")

        async def before_run_callback(self, *, invocation_context):
            if self.hook == "before_run":
                raise Boom("no runs today")

    for hook in ("on_user_message", "before_run"):
        heard.clear()
        agent = LlmAgent(name="a", model=ScriptedLlm(["never"]))
        runner = await runner_on("memory://", agent, [Refuses("refuses", hook), Listener("p1", heard)])
        events, error = await send_until_error(runner, "go")
        assert type(error).__name__ == "PluginError" and isinstance(error.__cause__, Boom)
        assert events == [] and heard == ["p1:on_run_error:PluginError"]
        assert not any(e.error_code for e in (await stored(runner)).events)


async def test_reflect_and_retry_does_not_count_a_cancelled_sibling_as_a_failure():
    from runtime.plugins import ReflectAndRetryToolPlugin, TrackingScope
    from runtime.plugins.reflect_retry_tool_plugin import GLOBAL_SCOPE_KEY

    async def slow() -> dict:
        await asyncio.sleep(30)
        return {}

    async def bad() -> dict:
        await asyncio.sleep(0.05)
        raise Boom("bad tool")

    retry = ReflectAndRetryToolPlugin(max_retries=0, tracking_scope=TrackingScope.GLOBAL)
    agent = LlmAgent(name="a", model=ScriptedLlm([ScriptedLlm.calls(("slow", {}), ("bad", {}))]), tools=[slow, bad])
    runner = await runner_on("memory://", agent, [retry])
    _, error = await send_until_error(runner, "go")
    assert isinstance(error.__cause__, Boom)  # retries exceeded: the plugin raises the tool's error
    assert retry._failures == {GLOBAL_SCOPE_KEY: {"bad": 1}}  # slow was cancelled, it did not fail
