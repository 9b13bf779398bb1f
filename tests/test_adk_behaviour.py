"""google-adk 2.13's behaviour in the places real ADK apps rely on (issue 28): output_key, callbacks
called as 2.13 calls them, a before_agent_callback's content kept as given."""

from __future__ import annotations

import pytest
from google.genai import types

from runtime import LlmAgent, LoopAgent, ScriptedLlm, SequentialAgent
from runtime.agents.context import Context
from runtime.callbacks import call_user
from runtime.tools import exit_loop
from tests.rt_helpers import new_runner, send, stored


async def test_a_response_without_text_keeps_the_last_text_in_output_key():
    writer = LlmAgent(name="writer", model=ScriptedLlm(["Draft one.", ScriptedLlm.call("exit_loop"), ""]),
                      tools=[exit_loop], output_key="document")
    runner = await new_runner(LoopAgent(name="loop", sub_agents=[writer], max_iterations=3))
    events = await send(runner, "write")
    exit_response = next(e for e in events if e.get_function_responses())
    assert "document" not in exit_response.actions.state_delta
    assert (await stored(runner)).state["document"] == "Draft one."


async def test_an_empty_text_part_still_writes_output_key():
    runner = await new_runner(LlmAgent(name="a", model=ScriptedLlm(["first", ""]), output_key="out"))
    await send(runner, "one")
    await send(runner, "two")
    assert (await stored(runner)).state["out"] == ""  # a text part, though empty: google-adk writes it


async def test_callbacks_that_take_a_context_by_another_name_get_their_arguments_by_position():
    heard = []

    def before_agent(ctx: Context):
        heard.append(("agent", type(ctx).__name__))

    async def before_model(context, request):
        heard.append(("model", bool(request.contents)))

    def before_tool(tool, arguments, context: Context):
        heard.append(("tool", tool.name, arguments))

    def after_tool(tool, arguments, context, result):
        return {"doubled": result["n"] * 2}

    def number() -> dict:
        """A number."""
        return {"n": 21}

    model = ScriptedLlm([ScriptedLlm.call("number"), lambda request: f"{ScriptedLlm.last_function_response(request).response}"])
    agent = LlmAgent(name="a", model=model, tools=[number], before_agent_callback=before_agent,
                     before_model_callback=before_model, before_tool_callback=before_tool, after_tool_callback=after_tool)
    events = await send(await new_runner(agent), "go")
    assert events[-1].text() == "{'doubled': 42}"
    assert heard[0] == ("agent", "Context") and ("model", True) in heard and ("tool", "number", {}) in heard


async def test_a_callback_that_fits_neither_way_raises_typeerror_naming_the_arguments():
    def wrong(a, b, c):
        return None

    with pytest.raises(TypeError, match="callback_context"):
        await call_user(wrong, callback_context=object())


async def test_before_agent_callback_content_keeps_the_role_it_was_given():
    def answer(callback_context):
        return types.Content(parts=[types.Part(text="Closed.")])

    runner = await new_runner(LlmAgent(name="a", model=ScriptedLlm([]), before_agent_callback=answer))
    events = await send(runner, "hi")
    assert events[0].content.role is None and events[0].text() == "Closed."
    assert (await stored(runner)).events[-1].content.role is None


async def test_every_agent_event_carries_its_place_in_the_tree_as_stored_on_every_store(store_url):
    from runtime.runner import Runner
    from runtime.sessions import session_service_from_url
    from tests.rt_helpers import APP, SESSION, USER

    grand = LlmAgent(name="grand", model=ScriptedLlm(["grand here"]))
    child = LlmAgent(name="child", model=ScriptedLlm([ScriptedLlm.call("transfer_to_agent", agent_name="grand")]),
                     sub_agents=[grand])
    steps = SequentialAgent(name="steps", sub_agents=[LlmAgent(name="one", model=ScriptedLlm(["one"]))])
    root = LlmAgent(name="root", model=ScriptedLlm([ScriptedLlm.call("transfer_to_agent", agent_name="child"),
                                                    ScriptedLlm.call("transfer_to_agent", agent_name="steps")]),
                    sub_agents=[child, steps])
    sessions = session_service_from_url(store_url)
    try:
        runner = Runner(agent=root, app_name=APP, session_service=sessions)
        await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
        await send(runner, "go")
        events = (await stored(runner)).events
        assert [(e.author, e.node_info.path) for e in events] == [
            ("user", ""), ("root", "root@1"), ("root", "root@1"), ("child", "root@1/child@1"),
            ("child", "root@1/child@1"), ("grand", "root@1/child@1/grand@1"),
        ]
        runner = Runner(agent=SequentialAgent(name="plain", sub_agents=[LlmAgent(name="x", model=ScriptedLlm(["x"]))]),
                        app_name=APP, session_service=sessions)
        await sessions.create_session(app_name=APP, user_id=USER, session_id="other")
        assert [e.node_info.path for e in await send(runner, "go", session_id="other")] == [""]  # 2.13 sets none
    finally:
        await sessions.close()


async def test_an_agent_tool_that_skips_summarization_shows_its_answer_as_the_last_word():
    from runtime.tools.agent_tool import AgentTool

    inner = LlmAgent(name="researcher", model=ScriptedLlm(["Paper is old."]), output_key="findings")
    outer_model = ScriptedLlm([ScriptedLlm.call("researcher", request="paper")])
    outer = LlmAgent(name="outer", model=outer_model, tools=[AgentTool(agent=inner, skip_summarization=True)],
                     output_key="answer")
    runner = await new_runner(outer)
    events = await send(runner, "research paper")
    last = events[-1]
    assert [p.text for p in last.content.parts][-1] == "Paper is old." and last.get_function_responses()
    assert last.is_final_response() and outer_model.turns_played == 1
    assert (await stored(runner)).state == {"findings": "Paper is old.", "answer": "Paper is old."}


async def test_a_plain_tool_that_skips_summarization_shows_nothing_beside_its_result():
    def quiet(tool_context) -> dict:
        """Acknowledges."""
        tool_context.actions.skip_summarization = True
        return {"ok": True}

    runner = await new_runner(LlmAgent(name="a", model=ScriptedLlm([ScriptedLlm.call("quiet")]), tools=[quiet]))
    events = await send(runner, "go")
    assert [p.text for p in events[-1].content.parts] == [None]


async def test_session_errors_start_with_google_adks_sentence_on_every_store(store_url):
    from domain.errors import AlreadyExistsError, SessionNotFoundError
    from domain.events import Event
    from runtime.sessions import session_service_from_url

    sessions = session_service_from_url(store_url)
    try:
        session = await sessions.create_session(app_name="app", user_id="u", session_id="s1")
        with pytest.raises(AlreadyExistsError, match=r"^Session with id s1 already exists\. "):
            await sessions.create_session(app_name="app", user_id="u", session_id="s1")
        await sessions.delete_session(app_name="app", user_id="u", session_id="s1")
        said = Event(author="user", invocation_id="e-1", content=types.Content(role="user", parts=[types.Part(text="hi")]))
        with pytest.raises(SessionNotFoundError, match=r"^Session s1 not found\. "):
            await sessions.append_event(session, said)
    finally:
        await sessions.close()


def test_agent_and_app_names_are_refused_in_google_adks_words():
    from pydantic import ValidationError

    from runtime.apps.app import App, validate_app_name

    with pytest.raises(ValidationError, match=r"Node name '1st' must be a valid Python identifier\."):
        LlmAgent(name="1st")
    with pytest.raises(ValidationError, match=r"Agent name cannot be `user`\. `user` is reserved for end-user's input\."):
        LlmAgent(name="user")
    with pytest.raises(ValidationError, match=r"Invalid app name 'a\.b': must start with a letter and can only consist "
                                               r"of letters, digits, underscores, and hyphens\."):
        App(name="a.b", root_agent=LlmAgent(name="a"))
    with pytest.raises(ValueError, match=r"^App name cannot be 'user'; reserved for end-user input\.$"):
        validate_app_name("user")
