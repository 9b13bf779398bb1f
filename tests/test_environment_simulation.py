"""Environment simulation in a real agent over every store: injected answers and errors, and a
model (the real google-genai client against the local Gemini-protocol server) playing the tools
with a state shared between calls, so a ticket one call creates is the one the next call reads."""

from __future__ import annotations

import json

import pytest

from runtime import LlmAgent, Runner, ScriptedLlm
from runtime.tools.environment_simulation import EnvironmentSimulationFactory
from runtime.tools.environment_simulation.environment_simulation_config import (
    EnvironmentSimulationConfig,
    InjectedError,
    InjectionConfig,
    MockStrategy,
    ToolSimulationConfig,
)
from tests.gemini_server import GeminiServer, gemini_server, response_json, text_part  # noqa: F401
from tests.hitl_helpers import APP, SESSION, USER, run, text  # noqa: F401 - the session conftest's `sessions` makes

CALLED: list[str] = []


def create_ticket(title: str) -> dict:
    """Opens a support ticket."""
    CALLED.append("create_ticket")
    return {"ticket_id": "real"}


def get_ticket(ticket_id: str) -> dict:
    """Reads a support ticket."""
    CALLED.append("get_ticket")
    return {"ticket_id": ticket_id, "real": True}


@pytest.fixture
def simulation_model(gemini_server: GeminiServer, monkeypatch):
    """The simulation's model: gemini-2.5-flash by name, served by the local server."""
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini_server.url)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    CALLED.clear()
    return gemini_server


def results_seen(model: ScriptedLlm) -> list[dict]:
    return [r.contents[-1].parts[0].function_response.response for r in model.requests[1:]]


async def test_injections_answer_in_place_of_the_tool(simulation_model, sessions):
    config = EnvironmentSimulationConfig(tool_simulation_configs=[ToolSimulationConfig(
        tool_name="get_ticket",
        injection_configs=[
            InjectionConfig(match_args={"ticket_id": "T-404"},
                            injected_error=InjectedError(injected_http_error_code=404, error_message="No such ticket")),
            InjectionConfig(match_args={"ticket_id": "T-1"}, injected_response={"ticket_id": "T-1", "status": "open"}),
        ],
    )])
    model = ScriptedLlm([ScriptedLlm.call("get_ticket", ticket_id="T-404"), ScriptedLlm.call("get_ticket", ticket_id="T-1"),
                         ScriptedLlm.call("get_ticket", ticket_id="T-2"), "done"])
    agent = LlmAgent(name="support", model=model, tools=[create_ticket, get_ticket])
    runner = Runner(app_name=APP, agent=agent, session_service=sessions,
                    plugins=[EnvironmentSimulationFactory.create_plugin(config)])

    await run(runner, text("look up my tickets"))

    assert results_seen(model)[:2] == [{"error_code": 404, "error_message": "No such ticket"},
                                       {"ticket_id": "T-1", "status": "open"}]
    # No injection matched and no mock strategy: the real tool ran.
    assert results_seen(model)[2] == {"ticket_id": "T-2", "real": True} and CALLED == ["get_ticket"]
    assert simulation_model.requests == []  # injections need no model


def simulator(request) -> dict:
    """The simulation model: maps the tools, then plays them from the state it is shown."""
    prompt = request.body["contents"][0]["parts"][0]["text"]
    if "Tool Name:" not in prompt:
        answer = {"stateful_parameters": [
            {"parameter_name": "ticket_id", "creating_tools": ["create_ticket"], "consuming_tools": ["get_ticket"]}]}
    elif "Tool Name: create_ticket" in prompt:
        answer = {"ticket_id": "T-77", "title": "Printer on fire"}
    else:  # get_ticket: answer from the state the prompt carries
        known = "T-77" in prompt.split("The state of every stateful identifier so far:", 1)[1].split("The call", 1)[0]
        answer = {"ticket_id": "T-77", "title": "Printer on fire"} if known else {"error": "404 Not Found"}
    return response_json([text_part("```json\n" + json.dumps(answer) + "\n```")])


async def test_a_model_plays_the_tools_consistently(simulation_model, sessions):
    simulation_model.responder = simulator
    config = EnvironmentSimulationConfig(
        tool_simulation_configs=[
            ToolSimulationConfig(tool_name=name, mock_strategy_type=MockStrategy.MOCK_STRATEGY_TOOL_SPEC)
            for name in ("create_ticket", "get_ticket")
        ],
        environment_data='{"printers": ["HP-1"]}',
    )
    model = ScriptedLlm([ScriptedLlm.call("create_ticket", title="Printer on fire"),
                         ScriptedLlm.call("get_ticket", ticket_id="T-77"), "Ticket T-77 is open."])
    agent = LlmAgent(name="support", model=model, tools=[create_ticket, get_ticket],
                     before_tool_callback=EnvironmentSimulationFactory.create_callback(config))
    runner = Runner(app_name=APP, agent=agent, session_service=sessions)

    events = await run(runner, text("my printer is on fire"))

    assert CALLED == []  # the real tools never ran
    assert results_seen(model) == [{"ticket_id": "T-77", "title": "Printer on fire"}] * 2
    analysis, create, get = simulation_model.requests
    assert analysis.model == create.model == "gemini-2.5-flash"
    for request in (analysis, create, get):
        assert request.body["generationConfig"]["responseMimeType"] == "application/json"
    create_prompt = create.body["contents"][0]["parts"][0]["text"]
    assert '"printers": ["HP-1"]' in create_prompt and '"name": "create_ticket"' in create_prompt
    assert events[-1].text() == "Ticket T-77 is open."


def test_configs_are_checked_when_made():
    with pytest.raises(ValueError, match="Either injected_error or injected_response"):
        InjectionConfig()
    with pytest.raises(ValueError, match="cannot be MOCK_STRATEGY_UNSPECIFIED"):
        ToolSimulationConfig(tool_name="t")
    with pytest.raises(ValueError, match="Duplicate tool_name found: t"):
        EnvironmentSimulationConfig(tool_simulation_configs=[
            ToolSimulationConfig(tool_name="t", mock_strategy_type=MockStrategy.MOCK_STRATEGY_TOOL_SPEC)] * 2)
    with pytest.raises(ValueError, match="tool_simulation_configs must be provided"):
        EnvironmentSimulationConfig(tool_simulation_configs=[])
