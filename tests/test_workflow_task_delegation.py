"""A chat agent hands work to a task-mode sub-agent (google-adk 2.13's task delegation): the task
talks with the user over turns in one invocation, then its finish_task result is the call's
result and the chat agent answers with it; resumable apps and plain ones, on every store.
(tools/parity/apps/task_agents*.py compare the same with google-adk, model requests too.)"""

from __future__ import annotations

import pytest
from google.genai import types
from pydantic import BaseModel

from runtime import App, LlmAgent, ResumabilityConfig, Runner, ScriptedLlm, session_service_from_url

APP, USER, SESSION = "delegation", "u1", "s1"


class Booking(BaseModel):
    city: str
    nights: int


@pytest.mark.parametrize("resumable", [True, False], ids=["resumable", "plain"])
async def test_a_delegated_task_talks_with_the_user_then_answers_the_chat_agent(store_url, resumable):
    booker_llm = ScriptedLlm(["How many nights?", ScriptedLlm.call("finish_task", city="Oslo", nights=3), "Booked."])
    booker = LlmAgent(name="booker", mode="task", output_schema=Booking, model=booker_llm,
                      description="Books hotels.", instruction="Book a hotel.")
    lead_llm = ScriptedLlm([ScriptedLlm.call("booker", request="a hotel in Oslo"), "All set."])
    lead = LlmAgent(name="lead", model=lead_llm, instruction="Help.", sub_agents=[booker])
    config = ResumabilityConfig(is_resumable=True) if resumable else None
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)

    async def say(text: str) -> list:
        runner = Runner(app=App(name=APP, root_agent=lead, resumability_config=config), session_service=sessions)
        message = types.Content(role="user", parts=[types.Part(text=text)])
        return [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]

    first = await say("book me a hotel")
    [call] = [c for e in first for c in e.get_function_calls()]
    asked = [e for e in first if e.author == "booker" and e.content]
    assert [(e.node_info.path, e.branch, e.content.parts[0].text) for e in asked] == [
        (f"lead@1/booker@{call.id}", f"booker@{call.id}", "How many nights?")
    ]
    assert not [e for e in first if e.get_function_responses()]  # the call waits for the task

    second = await say("3")
    assert {e.invocation_id for e in first + second} == {first[0].invocation_id}  # one invocation
    [result] = [e for e in second if any(r.name == "booker" for r in e.get_function_responses())]
    assert result.author == "user" and result.node_info.path == "lead@1"
    assert result.get_function_responses()[0].response == {"city": "Oslo", "nights": 3}
    assert [e.content.parts[0].text for e in second if e.author == "lead" and e.content] == ["All set."]
    assert booker_llm.turns_played == 2  # finish_task ends the task: it does not answer its own result
    # the task saw the call's arguments first, then its question and the reply
    said = [[p.text or (p.function_call and p.function_call.name) for p in c.parts] for c in booker_llm.requests[1].contents]
    assert said == [['{"request": "a hotel in Oslo"}'], ["How many nights?"], ["3"]]
    # a tool of the chat agent, not a transfer target
    declared = [d.name for t in lead_llm.requests[0].config.tools for d in t.function_declarations]
    assert declared == ["booker"]

    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    kept = [(e.author, e.node_info.path) for e in session.events if not e.actions.end_of_agent]
    assert kept == [
        ("user", ""), ("lead", "lead@1"), ("booker", f"lead@1/booker@{call.id}"), ("user", ""),
        ("booker", f"lead@1/booker@{call.id}"), ("booker", f"lead@1/booker@{call.id}"), ("user", "lead@1"),
        ("lead", "lead@1"),
    ]
    await sessions.close()


async def test_a_delegated_tasks_result_is_recorded_past_the_chat_agents_tool_callbacks(store_url):
    """As google-adk 2.13: the chat agent's before/after tool callbacks (its own and the plugins')
    see its other tools' calls, never the delegation; the result still reaches the log and the model."""
    from runtime.plugins.base_plugin import BasePlugin

    heard: list[str] = []

    class Listener(BasePlugin):
        async def before_tool_callback(self, *, tool, tool_args, tool_context):
            heard.append(f"plugin before {tool.name}")

        async def after_tool_callback(self, *, tool, tool_args, tool_context, result):
            heard.append(f"plugin after {tool.name}")

    def weather(city: str) -> dict:
        """The weather in a city."""
        return {"sky": "clear"}

    booker = LlmAgent(name="booker", mode="task", model=ScriptedLlm([ScriptedLlm.call("finish_task", result="booked")]),
                      description="Books hotels.", instruction="Book a hotel.")
    lead_llm = ScriptedLlm([ScriptedLlm.call("weather", city="Oslo"), ScriptedLlm.call("booker", request="Oslo"), "All set."])
    lead = LlmAgent(
        name="lead", model=lead_llm, instruction="Help.", sub_agents=[booker], tools=[weather],
        before_tool_callback=lambda tool, args, tool_context: heard.append(f"agent before {tool.name}"),
        after_tool_callback=lambda tool, args, tool_context, tool_response: heard.append(f"agent after {tool.name}"),
    )
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    runner = Runner(app=App(name=APP, root_agent=lead, plugins=[Listener(name="listener")]), session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="a hotel in Oslo")])
    _ = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    await sessions.close()
    assert [h for h in heard if "finish_task" not in h] == [
        "plugin before weather", "agent before weather", "plugin after weather", "agent after weather",
    ]
    [result] = [r for e in session.events for r in e.get_function_responses() if r.name == "booker"]
    assert result.response == {"result": "booked"}
    assert lead_llm.requests[-1].contents[-1].parts[0].function_response.response == {"result": "booked"}
