"""Judge-model metrics (`final_response_match_v2`): the judge gets the prompt google-adk 2.13 sends and its
answers score the same.

The judge is a Gemini model reached through the real google-genai client at the local Gemini-protocol server
(tests/gemini_server.py), which records every request and answers from a script. google-adk's evaluator (in
.venv-adk) and Chronicle's are given the same turns and the same scripted answers; the requests the server
received and the scores must be equal."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess

import pytest

from tests.adk_env import ADK_PYTHON
from domain.errors import InvalidArgumentError
from runtime.evaluation import AgentEvaluator, EvalConfig, EvalSet
from runtime.evaluation.eval_metrics import BaseCriterion, EvalMetric
from runtime.evaluation.final_response_match_v2 import FinalResponseMatchV2Evaluator, parse_verdict
from runtime.evaluation.eval_case import Invocation
from runtime.evaluation.llm_as_judge import JudgeCriterionError
from tests.cli_helpers import ROOT, cli
from tests.gemini_server import gemini_server  # noqa: F401 (the fixture)
from tools.parity.check import REPO



def text(role: str, said: str) -> dict:
    return {"role": role, "parts": [{"text": said}]}


ACTUAL = [
    {"invocationId": "t1", "userContent": text("user", "What is the weather in Paris?"),
     "finalResponse": text("model", "Expect sunny skies over Paris."),
     "intermediateData": {"invocationEvents": [
         {"author": "weather", "content": {"role": "model", "parts": [
             {"text": "Let me look that up."}, {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]}},
         {"author": "weather", "content": {"role": "user", "parts": [
             {"functionResponse": {"name": "get_weather", "response": {"forecast": "sunny"}}}]}}]}},
    {"invocationId": "t2", "userContent": text("user", "And in Rome?"),
     "finalResponse": text("model", "I do not know.")},
]
EXPECTED = [
    {"invocationId": "e1", "userContent": text("user", "What is the weather in Paris?"),
     "finalResponse": text("model", "The weather in Paris is sunny today.")},
    {"invocationId": "e2", "userContent": text("user", "And in Rome?"),
     "finalResponse": text("model", "The weather in Rome is rain today.")},
]

# Three samples of each turn, in the order both sides ask: turn 1 valid by 2 to 1 (in three spellings of the
# label); turn 2 "almost" (invalid), no label at all (not counted), and the field named the other way round.
THREE_SAMPLES = [
    '{\n  "reasoning": "Both say sunny.",\n  "is_the_agent_response_valid": "valid"\n}',
    '```json\n{"reasoning": "no", "is_the_agent_response_valid": ["invalid"]}\n```',
    '{"reasoning": "fine", "is_the_agent_response_valid": true}',
    '{"reasoning": "close", "is_the_agent_response_valid": "almost"}',
    'I cannot tell.',
    '{"reasoning": "wrong city", "is_the_agent_response_invalid": "true"}',
]
CASES = {
    "three_samples": ({"threshold": 0.6, "judge_model_options": {"judge_model": "gemini-2.5-flash", "num_samples": 3}},
                      THREE_SAMPLES),
    # the steps' text joins the answer; the user's judge config is sent; a turn with no label is not evaluated
    "intermediate": ({"threshold": 0.5, "include_intermediate_responses_in_final": True, "judge_model_options": {
        "judge_model": "gemini-2.0-flash", "num_samples": 1,
        "judge_model_config": {"temperature": 0.0, "max_output_tokens": 512}}},
        ['{"is_the_agent_response_valid": "valid",}', "no verdict here"]),
}


def adk_judge(asked: dict, server_url: str) -> dict:
    done = subprocess.run(
        [ADK_PYTHON, "-W", "ignore", "-m", "tests.eval_agents.adk_side", "judge", "-"], input=json.dumps(asked),
        capture_output=True, text=True, cwd=REPO, timeout=300,
        env={**os.environ, "PYTHONPATH": REPO, "GOOGLE_GEMINI_BASE_URL": server_url, "GOOGLE_API_KEY": "test-key"})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def chronicle_judge(criterion: dict) -> dict:
    metric = EvalMetric(metric_name="final_response_match_v2", criterion=BaseCriterion.model_validate(criterion))
    result = asyncio.run(FinalResponseMatchV2Evaluator(metric).evaluate_invocations(
        [Invocation.model_validate(i) for i in ACTUAL], [Invocation.model_validate(i) for i in EXPECTED]))
    return {"overall": [result.overall_score, result.overall_eval_status.name],
            "turns": [[r.score, r.eval_status.name] for r in result.per_invocation_results]}


def judged(server, answers: list[str], run) -> tuple[dict, list]:
    server.requests.clear()
    for answer in answers:
        server.reply_text(answer)
    found = run()
    assert server.pending == 0
    return found, [(r.model, r.method_name, r.body) for r in server.requests]




@pytest.mark.parametrize("case", sorted(CASES))
def test_the_judge_gets_google_adks_prompt_and_its_answers_score_the_same(case, adk_python, gemini_server,
                                                                           monkeypatch):
    criterion, answers = CASES[case]
    theirs, their_requests = judged(gemini_server, answers, lambda: adk_judge(
        {"metric": "final_response_match_v2", "criterion": criterion, "actual": ACTUAL, "expected": EXPECTED},
        gemini_server.url))
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini_server.url)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    ours, our_requests = judged(gemini_server, answers, lambda: chronicle_judge(criterion))
    assert our_requests == their_requests
    assert ours == theirs
    prompt = our_requests[0][2]["contents"][0]["parts"][0]["text"]
    assert '"Agent response": Expect sunny skies over Paris.' in prompt or case == "intermediate"
    if case == "three_samples":
        assert len(our_requests) == 6
        assert ours == {"overall": [0.5, "FAILED"], "turns": [[1.0, "PASSED"], [0.0, "FAILED"]]}
    else:
        assert '"Agent response": Let me look that up.\nExpect sunny skies over Paris.' in prompt
        assert our_requests[0][2]["generationConfig"] == {"temperature": 0.0, "maxOutputTokens": 512}
        assert ours == {"overall": [1.0, "PASSED"], "turns": [[1.0, "PASSED"], [None, "NOT_EVALUATED"]]}


def test_an_eval_run_scores_final_response_match_v2_with_the_judge_it_names(gemini_server, monkeypatch):
    """Through AgentEvaluator: the weather agent's answers go to the judge; a turn the judge calls invalid
    fails the case with the metric named."""
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini_server.url)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    gemini_server.responder = lambda request: {"candidates": [{"content": {"role": "model", "parts": [{"text": (
        '{"is_the_agent_response_valid": "valid"}' if "Paris is sunny" in json.dumps(request.body)
        else '{"is_the_agent_response_valid": "invalid"}')}]}, "finishReason": "STOP"}]}
    eval_set = EvalSet.model_validate({"eval_set_id": "judged", "eval_cases": [
        {"eval_id": "paris", "conversation": [EXPECTED[0]]},
        {"eval_id": "rome", "conversation": [EXPECTED[1] | {"finalResponse": text("model", "It rains in Rome.")}]},
    ]})
    config = EvalConfig(criteria={"final_response_match_v2": {
        "threshold": 1.0, "judge_model_options": {"judge_model": "gemini-2.5-flash", "num_samples": 1}}})
    with pytest.raises(AssertionError) as failed:
        asyncio.run(AgentEvaluator.evaluate_eval_set(agent_module="tests.eval_agents.weather_eval",
                                                     eval_set=eval_set, eval_config=config, num_runs=1,
                                                     print_detailed_results=False))
    assert str(failed.value).count("final_response_match_v2") == 1  # rome only
    sent = [r.body["contents"][0]["parts"][0]["text"] for r in gemini_server.requests]
    assert len(sent) == 2
    assert '"Agent response": The weather in Rome is rain today.' in sent[1]
    assert '"Reference response": It rains in Rome.' in sent[1]


def test_a_judge_metric_with_an_unreadable_criterion_is_refused_before_any_run():
    metric = EvalMetric(metric_name="final_response_match_v2", criterion=BaseCriterion.model_validate(
        {"threshold": 0.5, "judge_model_options": {"num_samples": 0}}))
    with pytest.raises(JudgeCriterionError, match="LlmAsAJudgeCriterion"):
        FinalResponseMatchV2Evaluator(metric)


@pytest.mark.parametrize("answer, verdict", [
    ('"is_the_agent_response_valid": "partially valid"}', None),  # the space ends the label: google-adk's regex
    ('"is_the_agent_response_valid": partially_valid,', False),
    ('"is_the_agent_response_valid": "false"\n', False),
    ('"is_the_agent_response_invalid": false}', True),
    ('{"is_the_agent_response_valid": "maybe"}', None),
])
def test_the_judges_label_is_read_as_google_adk_reads_it(answer, verdict):
    assert parse_verdict(answer) is verdict


def test_a_judge_without_credentials_fails_the_case_with_the_reason(monkeypatch):
    """Not a per-turn NOT_EVALUATED that a report would hide: the judge was never asked."""
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(key, raising=False)
    with pytest.raises(InvalidArgumentError, match="Gemini needs credentials"):
        chronicle_judge({"threshold": 0.5, "judge_model_options": {"num_samples": 1}})


def test_chronicle_eval_with_a_judge_metric_in_test_config(gemini_server, tmp_path):
    """What a user runs: `chronicle eval AGENT_DIR EVALSET --config` with final_response_match_v2 in it."""
    gemini_server.responder = lambda request: {"candidates": [{"content": {"role": "model", "parts": [
        {"text": '{"reasoning": "same forecast", "is_the_agent_response_valid": "valid"}'}]}, "finishReason": "STOP"}]}
    evalset, config = tmp_path / "judged.evalset.json", tmp_path / "test_config.json"
    evalset.write_text(json.dumps({"eval_set_id": "judged", "eval_cases": [
        {"eval_id": "paris", "conversation": [EXPECTED[0]]}]}))
    config.write_text(json.dumps({"criteria": {"final_response_match_v2": {
        "threshold": 1.0, "judgeModelOptions": {"judgeModel": "gemini-2.5-flash", "numSamples": 2}}}}))
    done = cli("eval", str(ROOT / "tests" / "eval_agents" / "weather_eval"), str(evalset), "--config", str(config),
               "--json", env={"GOOGLE_GEMINI_BASE_URL": gemini_server.url, "GOOGLE_API_KEY": "test-key"})
    case = json.loads(done.stdout)["cases"][0]
    assert case["metrics"]["final_response_match_v2"] == {"score": 1.0, "threshold": 1.0, "status": "PASSED"}
    assert len(gemini_server.requests) == 2  # numSamples, camelCase as google-adk writes it


def test_a_judge_call_that_fails_leaves_its_turn_not_evaluated(gemini_server, monkeypatch):
    """As in google-adk: the turn has no score and the case's score is over the turns judged."""
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini_server.url)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    gemini_server.reply_error(404, "models/gemini-2.5-flash is not found")
    gemini_server.reply_text('{"is_the_agent_response_valid": "invalid"}')
    found = chronicle_judge({"threshold": 0.5, "judge_model_options": {"num_samples": 1}})
    assert found == {"overall": [0.0, "FAILED"], "turns": [[None, "NOT_EVALUATED"], [0.0, "FAILED"]]}


# -- rubric-based metrics, through a whole eval run on both sides --------------------------

def rubric(rubric_id: str, text_property: str, kind: str = "FINAL_RESPONSE_QUALITY") -> dict:
    return {"rubric_id": rubric_id, "rubric_content": {"text_property": text_property}, "type": kind}


def rubric_judge(request) -> dict:
    """Answers every property in the prompt: `names_city` yes when the answer has a forecast; `concise` two
    samples in three yes; `polite` echoed with markdown and no ID (found by its text); others no."""
    prompt = request.body["contents"][0]["parts"][0]["text"]
    properties = prompt.rsplit("<properties>", 1)[1].split("</properties>", 1)[0]
    answer = prompt.rsplit("<final_answer>", 1)[1].split("</final_answer>", 1)[0] if "<final_answer>" in prompt \
        else prompt.rsplit("<response>", 1)[1]
    seen = rubric_judge.seen.setdefault(prompt, [0])
    seen[0] += 1
    lines = []
    for line in properties.strip().splitlines():
        rubric_id, text_property = line.split("[id: ", 1)[1].split("] ", 1)
        verdict = {"names_city": "yes" if "sunny" in answer or "rain" in answer else "no",
                   "called_weather": "yes" if '"name": "get_weather"' in answer else "no",
                   "concise": "no" if seen[0] == 2 else "yes", "polite": "Yes."}.get(rubric_id, "no")
        head = f"Property: **{text_property}**" if rubric_id == "polite" else f"ID: {rubric_id}\nProperty: {text_property}"
        lines.append(f"{head}\nEvidence: N/A\nRationale: judged {verdict}\nVerdict: {verdict}\n")
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": "\n".join(lines)}]},
                            "finishReason": "STOP"}]}


def rubric_scores_of(result: dict) -> dict:
    """Per case: status, and per metric its score, status and rubric scores, overall and per turn."""
    def metric(m):
        details = m.get("details") or {}
        return [m["score"], m["eval_status"], [(r["rubric_id"], r["score"], r.get("rationale"))
                                                for r in details.get("rubric_scores") or []]]
    return {c["eval_id"]: {
        "status": c["final_eval_status"],
        "overall": {m["metric_name"]: metric(m) for m in c["overall_eval_metric_results"]
                    if m["metric_name"].startswith("rubric_based_")},
        "turns": [{m["metric_name"]: metric(m) for m in t["eval_metric_results"]
                   if m["metric_name"].startswith("rubric_based_")}
                  for t in c["eval_metric_result_per_invocation"]]}
        for c in result["eval_case_results"]}


def test_rubric_based_metrics_prompt_and_score_as_google_adk(adk_python, gemini_server, tmp_path,
                                                                               monkeypatch):
    from runtime.evaluation import LocalEvalSetResultsManager
    from runtime.evaluation.local_eval_sets_manager import load_eval_set_from_file

    turn = lambda said, answer, rubrics=None: {  # noqa: E731
        "user_content": text("user", said), "final_response": text("model", answer), **({"rubrics": rubrics} if rubrics else {})}
    (tmp_path / "judged.evalset.json").write_text(json.dumps({"eval_set_id": "judged", "eval_cases": [
        {"eval_id": "paris_then_rome", "rubrics": [rubric("polite", "The answer is polite.")],
         "conversation": [turn("What is the weather in Paris?", "Sunny in Paris."),
                          turn("And in Rome?", "Rain in Rome.", [rubric("concise", "The answer is one sentence."),
                                                                  rubric("tools", "It called a tool.", "TOOL_USE_QUALITY")])]},
        {"eval_id": "chat", "conversation": [turn("hello there", "Hi!")]},
    ]}))
    (tmp_path / "judged_config.json").write_text(json.dumps({"criteria": {"rubric_based_final_response_quality_v1": {
        "threshold": 0.7, "judge_model_options": {"judge_model": "gemini-2.5-flash", "num_samples": 3},
        "rubrics": [rubric("names_city", "The answer gives the forecast of the city asked about.")]},
        "rubric_based_tool_use_quality_v1": {
            "threshold": 1.0, "judge_model_options": {"judge_model": "gemini-2.5-flash", "num_samples": 1},
            "rubrics": [rubric("called_weather", "The agent called get_weather.", "TOOL_USE_QUALITY")]}}}))
    rubric_judge.seen = {}
    gemini_server.responder = rubric_judge
    theirs = json.loads(adk("judged", tmp_path, gemini_server.url))
    their_requests = sent(gemini_server)

    gemini_server.requests.clear()
    rubric_judge.seen = {}
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini_server.url)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    results = tmp_path / "chronicle_judged"
    try:
        asyncio.run(AgentEvaluator.evaluate_eval_set(
            agent_module="tests.eval_agents.weather_eval", eval_set=load_eval_set_from_file(
                str(tmp_path / "judged.evalset.json")),
            eval_config=EvalConfig.model_validate_json((tmp_path / "judged_config.json").read_text()), num_runs=1,
            print_detailed_results=False, app_name="weather_eval",
            eval_set_results_manager=LocalEvalSetResultsManager(str(results))))
    except AssertionError:
        pass
    history = results / "weather_eval" / ".adk" / "eval_history"
    ours = json.loads(next(history.iterdir()).read_text())
    our_requests = sent(gemini_server)

    assert len(our_requests) == 3 * 3 + 3  # three turns: three samples of one metric, one of the other
    assert our_requests == their_requests
    assert rubric_scores_of(ours) == rubric_scores_of(theirs)
    prompt = json.loads(our_requests[0])["contents"][0]["parts"][0]["text"]
    assert "get_weather" in prompt  # the agent's tools, as its model request declared them
    rome = rubric_scores_of(ours)["paris_then_rome"]["turns"][1]["rubric_based_final_response_quality_v1"]
    assert sorted(r[:2] for r in rome[2]) == [("concise", 1.0), ("names_city", 1.0), ("polite", 1.0)]
    tools = {case: [t["rubric_based_tool_use_quality_v1"][2] for t in found["turns"]]
             for case, found in rubric_scores_of(ours).items()}
    # each metric reads the rubrics of its own type: Rome's TOOL_USE_QUALITY one only here
    assert tools == {"paris_then_rome": [[("called_weather", 1.0, "judged yes")],
                                         [("called_weather", 1.0, "judged yes"), ("tools", 0.0, "judged no")]],
                     "chat": [[("called_weather", 0.0, "judged no")]]}


def sent(server) -> list[str]:
    """The judge's requests, in a stable order (cases may be judged concurrently), tool call ids (random per
    run, on either side) blanked."""
    return sorted(re.sub(r'adk-[0-9a-f-]{36}', "CALL_ID", json.dumps(r.body, sort_keys=True)) for r in server.requests)


def adk(command: str, folder, server_url: str, *more: str) -> str:
    done = subprocess.run(
        [ADK_PYTHON, "-W", "ignore", "-m", "tests.eval_agents.adk_side", command, str(folder), *more],
        capture_output=True, text=True, cwd=REPO, timeout=300,
        env={**os.environ, "PYTHONPATH": REPO, "GOOGLE_GEMINI_BASE_URL": server_url, "GOOGLE_API_KEY": "test-key"})
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]
