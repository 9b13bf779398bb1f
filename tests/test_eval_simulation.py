"""Eval cases with a conversation scenario: a simulated user (a model following the case's plan) talks to
the agent until it sends the stop signal or the turn limit is met, as in google-adk 2.13.

The simulator's model is Gemini through the real google-genai client at the local Gemini-protocol server,
which answers from the conversation it is shown. google-adk (in .venv-adk) and Chronicle run the same
evalset and config: the turns the agent took, the simulator calls and the scores must be equal. The
instructions wording is Chronicle's own, so the requests are compared on the conversation they carry."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import ValidationError

from runtime.evaluation import AgentEvaluator, EvalConfig, LocalEvalSetResultsManager
from runtime.evaluation.eval_case import EvalCase
from runtime.evaluation.local_eval_sets_manager import load_eval_set_from_file
from runtime.evaluation.simulation import LlmBackedUserSimulator, LlmBackedUserSimulatorConfig, Status
from tests.cli_helpers import ROOT, cli
from tests.gemini_server import gemini_server  # noqa: F401 (the fixture)
from tests.test_eval_judge import adk

AGENT = "tests.eval_agents.weather_eval"
PLAN = "Ask about Paris first, then about Rome. When you know both forecasts, you are done."
HISTORY_AFTER_PARIS = "user: What is the weather in Paris?\n\nforecaster: The weather in Paris is sunny today."


def simulated_user(request) -> dict:
    """The simulated user's model: asks for Rome once Paris is answered, then stops."""
    prompt = request.body["contents"][0]["parts"][0]["text"]
    said = "</finished>" if "in Rome is" in prompt else "And what about Rome?"
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": said}]}, "finishReason": "STOP"}]}


def write(folder, *, config: dict, scenario: dict | None = None) -> None:
    (folder / "simulated.evalset.json").write_text(json.dumps({"eval_set_id": "simulated", "eval_cases": [{
        "eval_id": "paris_and_rome", "session_input": {"app_name": "weather_eval", "user_id": "ann", "state": {}},
        "conversation_scenario": scenario or {"starting_prompt": "What is the weather in Paris?",
                                              "conversation_plan": PLAN}}]}))
    (folder / "simulated_config.json").write_text(json.dumps(config))


def chronicle_result(folder) -> dict:
    results = folder / "chronicle_simulated"
    try:
        asyncio.run(AgentEvaluator.evaluate_eval_set(
            agent_module=AGENT, eval_set=load_eval_set_from_file(str(folder / "simulated.evalset.json")),
            eval_config=EvalConfig.model_validate_json((folder / "simulated_config.json").read_text()),
            num_runs=1, print_detailed_results=False, app_name="weather_eval",
            eval_set_results_manager=LocalEvalSetResultsManager(str(results))))
    except AssertionError:
        pass
    return json.loads(next((results / "weather_eval" / ".adk" / "eval_history").iterdir()).read_text())


def played(result: dict) -> dict:
    """Per case: its status, each turn's user message and answer, and each metric's score and status."""
    def said(content):
        return "".join(p.get("text", "") for p in (content or {}).get("parts", []))
    return {c["eval_id"]: {
        "status": c["final_eval_status"],
        "turns": [(said(t["actual_invocation"]["user_content"]), said(t["actual_invocation"]["final_response"]),
                   t["expected_invocation"]) for t in c["eval_metric_result_per_invocation"]],
        "metrics": {m["metric_name"]: (m["score"], m["eval_status"]) for m in c["overall_eval_metric_results"]
                    if m["metric_name"] != "invocation_duration_v1"}}
        for c in result["eval_case_results"]}


def simulator_prompts(server) -> list[str]:
    return [r.body["contents"][0]["parts"][0]["text"] for r in server.requests]


def test_a_simulated_user_plays_the_scenario_as_on_google_adk(adk_python, gemini_server, tmp_path, monkeypatch):
    write(tmp_path, config={"criteria": {"tool_trajectory_avg_score": 1.0},
                            "user_simulator_config": {"model": "gemini-2.5-flash", "max_allowed_invocations": 5}})
    gemini_server.responder = simulated_user
    theirs = played(json.loads(adk("judged", tmp_path, gemini_server.url, "simulated")))
    their_prompts = simulator_prompts(gemini_server)

    gemini_server.requests.clear()
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini_server.url)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    ours = played(chronicle_result(tmp_path))
    our_prompts = simulator_prompts(gemini_server)

    assert ours == theirs
    assert ours["paris_and_rome"]["turns"] == [
        ("What is the weather in Paris?", "The weather in Paris is sunny today.", None),
        ("And what about Rome?", "The weather in Rome is rain today.", None)]
    # no expected turns: the trajectory cannot be scored, the tool count still is
    assert ours["paris_and_rome"]["metrics"]["tool_trajectory_avg_score"] == (None, 3)  # NOT_EVALUATED, as result files write it
    # the starting prompt is sent as is; the model is asked after each turn, shown the same conversation
    assert len(our_prompts) == len(their_prompts) == 2
    for ask, theirs_ask in zip(our_prompts, their_prompts):
        assert PLAN in ask and PLAN in theirs_ask
    assert HISTORY_AFTER_PARIS in our_prompts[0] and HISTORY_AFTER_PARIS in their_prompts[0]


def test_the_turn_limit_ends_a_conversation_that_never_ends(gemini_server, tmp_path, monkeypatch):
    write(tmp_path, config={"criteria": {},
                            "userSimulatorConfig": {"maxAllowedInvocations": 3}})  # camelCase, no `type`: llm_backed
    gemini_server.responder = lambda request: {"candidates": [{"content": {"role": "model", "parts": [
        {"text": "thinking...", "thought": True}, {"text": "And in Tokyo?"}]}}]}
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini_server.url)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    turns = played(chronicle_result(tmp_path))["paris_and_rome"]["turns"]
    assert [t[0] for t in turns] == ["What is the weather in Paris?", "And in Tokyo?", "And in Tokyo?"]
    assert len(gemini_server.requests) == 2  # the starting prompt needs no model


def test_custom_instructions_and_a_persona_reach_the_simulator(gemini_server, tmp_path, monkeypatch):
    custom = ("Plan: {{ conversation_plan }}\nYou are: {{ persona.description }}\nSo far:\n{{ conversation_history }}\n"
              "Done? Say {{ stop_signal }}.")
    write(tmp_path, config={"criteria": {}, "user_simulator_config": {
        "type": "llm_backed", "custom_instructions": custom, "include_function_calls": True}},
        scenario={"starting_prompt": "What is the weather in Paris?", "conversation_plan": PLAN,
                  "user_persona": "NOVICE"})
    gemini_server.responder = lambda request: {"candidates": [{"content": {"role": "model", "parts": [
        {"text": "</FINISHED>"}]}}]}  # the stop signal is found in any case
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini_server.url)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    assert len(played(chronicle_result(tmp_path))["paris_and_rome"]["turns"]) == 1
    prompt, = simulator_prompts(gemini_server)
    assert prompt.startswith(f"Plan: {PLAN}\nYou are: New to the domain") and prompt.endswith("Say </finished>.")
    assert "forecaster called tool 'get_weather' with args: {'city': 'Paris'}" in prompt
    assert "Tool 'get_weather' returned: {'city': 'Paris', 'forecast': 'sunny', 'unit': 'C'}" in prompt


def test_bad_scenarios_and_configs_are_refused_before_any_run():
    with pytest.raises(ValidationError, match="must contain each of the following formatting placeholders"):
        EvalConfig.model_validate({"criteria": {}, "user_simulator_config": {"custom_instructions": "{{ stop_signal }}"}})
    with pytest.raises(ValidationError, match="Unknown user simulator type 'audio'"):
        EvalConfig.model_validate({"criteria": {}, "user_simulator_config": {"type": "audio"}})
    with pytest.raises(ValidationError, match="NOBODY not found in registry"):
        EvalCase.model_validate({"eval_id": "x", "conversation_scenario": {
            "starting_prompt": "hi", "conversation_plan": "p", "user_persona": "NOBODY"}})
    with pytest.raises(ValidationError, match="Exactly one of conversation and conversation_scenario"):
        EvalCase.model_validate({"eval_id": "x", "conversation": [], "conversation_scenario": {
            "starting_prompt": "hi", "conversation_plan": "p"}})


def test_a_simulator_model_that_answers_nothing_fails_the_case_with_the_reason(gemini_server, monkeypatch):
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini_server.url)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    gemini_server.reply(({"candidates": [{"content": {"role": "model", "parts": [{"text": "hmm", "thought": True}]}}]}))
    case = EvalCase.model_validate({"eval_id": "x", "conversation_scenario": {"starting_prompt": "hi",
                                                                            "conversation_plan": "p"}})
    simulator = LlmBackedUserSimulator(config=LlmBackedUserSimulatorConfig(), conversation_scenario=case.conversation_scenario)
    first = asyncio.run(simulator.get_next_user_message([]))
    assert first.status == Status.SUCCESS and first.user_message.parts[0].text == "hi"
    with pytest.raises(RuntimeError, match="LLM returned only thinking tokens"):
        asyncio.run(simulator.get_next_user_message([]))


@pytest.mark.parametrize("store", ["sqlite_url", "postgres_url"])  # stores that outlive a command
def test_a_simulated_conversation_is_recorded_and_becomes_a_regression_case(gemini_server, store, request, tmp_path):
    """`chronicle eval --store` records what the simulated user said; `eval create` takes it as a static case,
    so the next run replays those exact messages without the simulator."""
    store_url = request.getfixturevalue(store)
    write(tmp_path, config={"criteria": {}, "user_simulator_config": {}})
    gemini_server.responder = simulated_user
    env = {"GOOGLE_GEMINI_BASE_URL": gemini_server.url, "GOOGLE_API_KEY": "test-key"}
    agent_dir = str(ROOT / "tests" / "eval_agents" / "weather_eval")
    ran = json.loads(cli("eval", agent_dir, str(tmp_path / "simulated.evalset.json"), "--config",
                         str(tmp_path / "simulated_config.json"), "--json", store=store_url, env=env,
                         expect=1).stdout)  # nothing scored (no expected turns, no judge): not a pass
    assert ran["cases"][0]["status"] == "NOT_EVALUATED" and ran["recorded"]
    session = f"{ran['run_id']}-0-0"
    out = str(tmp_path / "replay.evalset.json")
    cli("eval", "create", "--from", session, "--out", out, store=store_url)
    case, = load_eval_set_from_file(out).eval_cases
    assert [t.user_content.parts[0].text for t in case.conversation] == ["What is the weather in Paris?",
                                                                         "And what about Rome?"]
    asked = len(gemini_server.requests)
    again = json.loads(cli("eval", agent_dir, out, "--json", env=env).stdout)  # default criteria: trajectory, rouge
    assert again["cases"][0]["status"] == "PASSED" and len(gemini_server.requests) == asked
