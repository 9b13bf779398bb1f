"""Behaviours google-adk 2.13's own unit tests expect, as a porting user meets them: the stale
writer's error, tool confirmations kept in the log, deprecations, the agent-name label, answering
a long-running call in a non-resumable app, FunctionTool's arguments and description, response
scheduling, and toolsets asked for their tools once per invocation."""

from __future__ import annotations

import warnings
from typing import Optional, Union

import pytest
from google.genai import types
from pydantic import BaseModel

from domain import Event, EventActions
from domain.errors import InputValidationError, StaleSessionError
from runtime import LlmAgent, LoopAgent, Runner, ScriptedLlm, SequentialAgent
from runtime.models import Gemini
from runtime.sessions import session_service_from_url
from runtime.tools import FunctionTool, LongRunningFunctionTool
from runtime.tools.base_toolset import BaseToolset
from runtime.tools.tool_confirmation import ToolConfirmation
from tests.gemini_server import GeminiServer, gemini_server  # noqa: F401 - fixture
from tests.rt_helpers import APP, SESSION, USER, new_runner, send, texts, user_msg


# -- sessions, on every store -----------------------------------------------------------------

async def test_a_stale_writer_gets_adks_value_error_and_nothing_is_written(store_url):
    service = session_service_from_url(store_url)
    session = await service.create_session(app_name="app", user_id="u")
    stale = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    await service.append_event(session, Event(author="user", actions=EventActions(state_delta={"k": 1})))
    with pytest.raises(ValueError, match="modified in storage since it was loaded") as raised:
        await service.append_event(stale, Event(author="user", actions=EventActions(state_delta={"k": 2})))
    assert isinstance(raised.value, StaleSessionError)
    loaded = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert loaded.state == {"k": 1} and len(loaded.events) == 1


async def test_a_requested_tool_confirmation_comes_back_from_the_store_as_a_tool_confirmation(store_url):
    service = session_service_from_url(store_url)
    session = await service.create_session(app_name="app", user_id="u")
    asked = ToolConfirmation(hint="delete the album?", payload={"album": "a1"})
    await service.append_event(
        session, Event(author="agent", actions=EventActions(requested_tool_confirmations={"call-1": asked}))
    )
    loaded = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    confirmation = loaded.events[0].actions.requested_tool_confirmations["call-1"]
    assert isinstance(confirmation, ToolConfirmation)
    assert (confirmation.hint, confirmation.payload, confirmation.confirmed) == ("delete the album?", {"album": "a1"}, False)


# -- agents -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", [LoopAgent, SequentialAgent])
def test_loop_and_sequential_agents_are_deprecated_in_adks_words(kind):
    with pytest.warns(DeprecationWarning, match="deprecated in favor of Workflow.*sub-agent"):
        kind(name="shell", sub_agents=[])


async def test_each_model_call_is_labelled_with_the_agents_name_after_the_before_model_callbacks():
    seen_by_callback = []

    def before_model(callback_context, llm_request):
        seen_by_callback.append(llm_request.config.labels)

    model = ScriptedLlm(["Hi."])
    runner = await new_runner(LlmAgent(name="greeter", model=model, before_model_callback=before_model))
    await send(runner, "hello")
    assert seen_by_callback == [None]
    assert model.requests[0].config.labels == {"adk_agent_name": "greeter"}


async def test_the_gemini_api_is_sent_no_labels(gemini_server: GeminiServer):  # noqa: F811 - fixture
    gemini_server.reply_text("Hi.")
    agent = LlmAgent(name="greeter", model=Gemini(model="gemini-2.5-flash", api_key="k", base_url=gemini_server.url))
    runner = await new_runner(agent)
    assert texts(await send(runner, "hello")) == ["Hi."]
    assert "labels" not in gemini_server.requests[0].body


# -- a long-running call answered in a non-resumable app -------------------------------------

def ask_manager(purpose: str) -> dict:
    """Asks a manager to approve a purchase."""
    return {"status": "pending"}


async def test_an_answer_to_a_long_running_call_is_recorded_in_the_calls_invocation_whatever_id_is_given():
    model = ScriptedLlm([ScriptedLlm.call("ask_manager", purpose="laptop"), "Waiting.", "Approved."])
    runner = await new_runner(LlmAgent(name="buyer", model=model, tools=[LongRunningFunctionTool(ask_manager)]))
    first = await send(runner, "a laptop")
    call = next(c for e in first for c in e.get_function_calls())
    answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id=call.id, name="ask_manager", response={"status": "approved"}))])
    given = first[0].invocation_id
    second = [e async for e in runner.run_async(
        user_id=USER, session_id=SESSION, new_message=answer, invocation_id="some-other-id")]
    assert texts(second) == ["Approved."]
    assert {e.invocation_id for e in second} == {given}
    # A used id with no answer in the message is still refused, before anything is written.
    with pytest.raises(InputValidationError, match="already used"):
        await send(runner, "again", invocation_id=given)


# -- tools ------------------------------------------------------------------------------------

class Person(BaseModel):
    name: str
    age: int


class Company(BaseModel):
    company_name: str


def profile(entity: Union[Person, Company], note: Optional[str] = None) -> dict:
    """Describes an entity."""
    return {"kind": type(entity).__name__}


class Doubler:
    async def __call__(self, x: int) -> int:
        """Doubles a number."""
        return 2 * x


async def test_function_tool_fills_a_union_of_models_with_the_one_that_fits():
    tool = FunctionTool(profile)
    assert await tool.run_async(args={"entity": {"company_name": "ACME"}}, tool_context=None) == {"kind": "Company"}
    assert await tool.run_async(args={"entity": {"name": "Di", "age": 3}}, tool_context=None) == {"kind": "Person"}


def test_a_callable_objects_tool_is_described_by_its_call_method():
    assert FunctionTool(Doubler()).description == "Doubles a number."


async def test_a_tools_response_scheduling_is_set_on_its_function_responses():
    tool = FunctionTool(profile)
    tool.response_scheduling = types.FunctionResponseScheduling.SILENT
    model = ScriptedLlm([ScriptedLlm.call("profile", entity={"company_name": "ACME"}), "Done."])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[tool]))
    events = await send(runner, "who?")
    (response,) = [r for e in events for r in e.get_function_responses()]
    assert response.scheduling == types.FunctionResponseScheduling.SILENT
    assert FunctionTool(ask_manager).response_scheduling is None


class CountingToolset(BaseToolset):
    def __init__(self):
        super().__init__(tool_name_prefix="crm")
        self.asked = 0

    async def get_tools(self, readonly_context=None):
        self.asked += 1
        return [FunctionTool(profile)]


async def test_a_toolset_is_asked_for_its_tools_once_per_invocation():
    toolset = CountingToolset()
    model = ScriptedLlm([ScriptedLlm.call("crm_profile", entity={"company_name": "A"}), "Done.", "Again."])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[toolset]))
    await send(runner, "who?")  # two model calls
    assert toolset.asked == 1
    await send(runner, "and now?")
    assert toolset.asked == 2
    assert model.requests[0].config.tools[0].function_declarations[0].name == "crm_profile"
