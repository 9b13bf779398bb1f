"""GoogleSearchAgentTool (search grounding carried onto the caller's answer) and the data agent
tools (declared as in google-adk, refusing at use: the service is Google Cloud's), in a real
agent over every store."""

from __future__ import annotations

import pytest
from google.genai import types

from runtime import LlmAgent, Runner, ScriptedLlm
from runtime.models import LlmResponse
from runtime.tools.data_agent import DataAgentCredentialsConfig, DataAgentToolConfig, DataAgentToolset
from runtime.tools.google_search_agent_tool import GoogleSearchAgentTool, create_google_search_agent
from tests.hitl_helpers import APP, SESSION, USER, run, text  # noqa: F401 - the session conftest's `sessions` makes

GROUNDING = types.GroundingMetadata(web_search_queries=["weather in Paris"])


async def test_the_search_agents_grounding_reaches_the_callers_answer(sessions):
    searcher = create_google_search_agent(ScriptedLlm([LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text="Sunny, 21 C.")]), grounding_metadata=GROUNDING)],
        model="gemini-2.5-flash"))  # search is Gemini's: the tool refuses other models
    root_model = ScriptedLlm([ScriptedLlm.call("google_search_agent", request="weather in Paris"), "It is sunny."])
    root = LlmAgent(name="assistant", model=root_model, tools=[GoogleSearchAgentTool(searcher)])
    runner = Runner(app_name=APP, agent=root, session_service=sessions)

    events = await run(runner, text("weather?"))

    assert events[1].get_function_responses()[0].response == {"result": "Sunny, 21 C."}
    assert events[-1].text() == "It is sunny." and events[-1].grounding_metadata == GROUNDING
    stored = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert stored.events[-1].grounding_metadata == GROUNDING
    assert "temp:_adk_grounding_metadata" not in stored.state  # the invocation's only
    # The search agent is declared to the caller as google-adk declares it.
    [declaration] = root_model.requests[0].config.tools[0].function_declarations
    assert declaration.name == "google_search_agent"
    assert declaration.description == "An agent for performing Google search using built-in search grounding"
    # A later turn without a search carries no stale grounding.
    root_model.turns.append("Anything else?")
    assert (await run(runner, text("thanks")))[-1].grounding_metadata is None


@pytest.mark.parametrize("credentials, refusal", [
    (dict(credentials=object()), "data agents run on Google Cloud's Gemini Data Analytics API, which Chronicle does not include"),
    (dict(client_id="id", client_secret="secret"), "needs a Google user's OAuth authorisation, which Chronicle does not run"),
])
async def test_data_agent_tools_are_declared_and_refuse_clearly_at_use(sessions, credentials, refusal):
    toolset = DataAgentToolset(credentials_config=DataAgentCredentialsConfig(**credentials))
    model = ScriptedLlm([ScriptedLlm.call("ask_data_agent", data_agent_name="projects/p/locations/global/dataAgents/a",
                                          query="top customers?"), "I cannot reach it."])
    runner = Runner(app_name=APP, agent=LlmAgent(name="analyst", model=model, tools=[toolset]), session_service=sessions)

    events = await run(runner, text("who are our top customers?"))

    declarations = {d.name: d for d in model.requests[0].config.tools[0].function_declarations}
    assert set(declarations) == {"list_accessible_data_agents", "get_data_agent_info", "ask_data_agent"}
    # The runtime supplies credentials and settings: the model never sees them.
    assert set(declarations["ask_data_agent"].parameters_json_schema["properties"]) == {"data_agent_name", "query"}
    answer = events[1].get_function_responses()[0].response
    assert answer["status"] == "ERROR"
    assert refusal in answer["error_details"]


async def test_modification_tools_only_when_enabled():
    credentials = DataAgentCredentialsConfig(client_id="id", client_secret="secret")
    assert credentials.scopes == ["https://www.googleapis.com/auth/bigquery"]
    enabled = DataAgentToolset(credentials_config=credentials,
                               data_agent_tool_config=DataAgentToolConfig(enable_data_agent_modification=True))
    assert {t.name for t in await enabled.get_tools()} >= {"create_data_agent", "update_data_agent", "delete_data_agent"}
    assert [t.name for t in await DataAgentToolset(tool_filter=[]).get_tools()] == []
    with pytest.raises(ValueError, match="Must provide one of credentials"):
        DataAgentCredentialsConfig()
