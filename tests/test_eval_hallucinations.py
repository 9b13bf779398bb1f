"""`hallucinations_v1`: the judge splits each answer into sentences, then labels each against what the agent
knew; the score is the share of sentences supported (or needing no support).

The judge is a Gemini model reached through the real google-genai client at the local Gemini-protocol server
(tests/gemini_server.py), answering from a script that reads the prompt. google-adk 2.13 (in .venv-adk) and
Chronicle are given the same turns and the same judge; the requests the judge received and the scores, per
case and per turn, must be equal."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from domain.errors import InvalidArgumentError
from runtime.evaluation import AgentEvaluator, EvalConfig, LocalEvalSetResultsManager
from runtime.evaluation.eval_case import Invocation
from runtime.evaluation.eval_metrics import BaseCriterion, EvalMetric, EvalStatus
from runtime.evaluation.hallucinations_v1 import HallucinationsV1Evaluator, labels_of
from runtime.evaluation.llm_as_judge import JudgeCriterionError
from runtime.evaluation.local_eval_sets_manager import load_eval_set_from_file
from tests.gemini_server import gemini_server  # noqa: F401 (the fixture)
from tests.test_eval_judge import adk, adk_judge, sent, text

FORECASTS = ("sunny", "rain")


def segment(response: str) -> list[str]:
    """The scripted segmenter: sentences, and a trailing "today." as one of its own; "Hmm" gives none."""
    if response.startswith("Hmm"):
        return []
    return [s for s in re.split(r"(?<=[.?!])\s+|\s+(?=today\.)", response.strip()) if s]


def label(sentence: str, context: str) -> str:
    """The scripted validator: a forecast the tools returned is supported, another forecast contradictory;
    questions and asides need no support; "often" is disputed; "today." unsupported; anything else a label
    neither side counts."""
    if sentence.startswith(("Which", "Let me")):
        return "not_applicable"
    if "often" in sentence:
        return "disputed"
    said = [f for f in FORECASTS if f in sentence]
    if said:
        returned = [f for f in FORECASTS if f'"forecast": "{f}"' in context]
        return "supported" if said[0] in returned else "contradictory" if returned else "unsupported"
    return "unsupported" if sentence == "today." else "unclear"


def judge(request) -> dict:
    prompt = request.body["contents"][0]["parts"][0]["text"]
    if "segment the provided response" in prompt:
        response = prompt.rsplit("**Response Begin**\n", 1)[1].rsplit("\n**Response End**", 1)[0]
        answer = "\n".join(f"<sentence>{s}</sentence>" for s in segment(response))
    else:
        context = prompt.rsplit("**Context Begin**\n", 1)[1].split("\n**Context End**", 1)[0]
        sentences = re.findall(r"<sentence>(.*?)</sentence>",
                               prompt.rsplit("**Sentences Begin**", 1)[1].split("**Sentences End**", 1)[0])
        answer = "\n\n".join(f"sentence: {s}\nlabel: {label(s, context)}\nrationale: scripted\n"
                             f"supporting_excerpt: null\ncontradicting_excerpt: null" for s in sentences)
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": answer or "I cannot."}]},
                            "finishReason": "STOP"}]}


def use_judge(server, monkeypatch) -> None:
    server.requests.clear()
    server.responder = judge
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.url)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")


def scores_of(result: dict) -> dict:
    """Per case: its status, the metric's score and status overall and per turn."""
    def metric(results):
        return [[m["score"], m["eval_status"], (m.get("details") or {}).get("rubric_scores")]
                for m in results if m["metric_name"] == "hallucinations_v1"]
    return {c["eval_id"]: {"status": c["final_eval_status"], "overall": metric(c["overall_eval_metric_results"]),
                           "turns": [metric(t["eval_metric_results"]) for t in c["eval_metric_result_per_invocation"]]}
            for c in result["eval_case_results"]}


def test_an_eval_run_scores_hallucinations_v1_as_google_adk(adk_python, gemini_server, tmp_path, monkeypatch):
    turn = lambda said: {"user_content": text("user", said)}  # noqa: E731
    (tmp_path / "halluc.evalset.json").write_text(json.dumps({"eval_set_id": "halluc", "eval_cases": [
        {"eval_id": "paris_then_rome", "conversation": [turn("What is the weather in Paris?"),
                                                        turn("And in Rome?")]},
        {"eval_id": "chat", "conversation": [turn("hello there")]},
    ]}))
    (tmp_path / "halluc_config.json").write_text(json.dumps({"criteria": {"hallucinations_v1": {
        "threshold": 0.6, "evaluate_intermediate_nl_responses": True,
        "judge_model_options": {"judge_model": "gemini-2.5-flash", "judge_model_config": {"temperature": 0.0}}}}}))
    use_judge(gemini_server, monkeypatch)
    theirs = json.loads(adk("judged", tmp_path, gemini_server.url, "halluc"))
    their_requests = sent(gemini_server)

    use_judge(gemini_server, monkeypatch)
    results = tmp_path / "chronicle_halluc"
    try:
        asyncio.run(AgentEvaluator.evaluate_eval_set(
            agent_module="tests.eval_agents.weather_eval",
            eval_set=load_eval_set_from_file(str(tmp_path / "halluc.evalset.json")),
            eval_config=EvalConfig.model_validate_json((tmp_path / "halluc_config.json").read_text()), num_runs=1,
            print_detailed_results=False, app_name="weather_eval",
            eval_set_results_manager=LocalEvalSetResultsManager(str(results))))
    except AssertionError:  # a case failed its threshold, as one does here
        pass
    history = results / "weather_eval" / ".adk" / "eval_history"
    ours = json.loads(next(history.iterdir()).read_text())
    our_requests = sent(gemini_server)

    assert len(our_requests) == 2 * 3  # each turn's one answer: split, then labelled
    assert our_requests == their_requests
    assert scores_of(ours) == scores_of(theirs)
    # Paris and Rome: the forecast the tool returned is supported, "today." is not
    passed, failed = EvalStatus.PASSED.value, EvalStatus.FAILED.value  # the result file writes their numbers
    assert scores_of(ours) == {
        "paris_then_rome": {"status": failed, "overall": [[0.5, failed, None]],
                            "turns": [[[0.5, failed, []]], [[0.5, failed, []]]]},
        "chat": {"status": passed, "overall": [[1.0, passed, None]], "turns": [[[1.0, passed, []]]]}}
    labelled = [json.loads(r)["contents"][0]["parts"][0]["text"] for r in our_requests
                if "**Context Begin**" in r and "Paris" in r][-1]
    assert "Developer instructions:\nforecaster:\nTell the weather.\n" in labelled
    assert '"name": "get_weather"' in labelled and "tool_outputs:" in labelled


AGENTS = {"agent_details": {"forecaster": {"name": "forecaster", "instructions": "Tell the weather.",
                                           "tool_declarations": [{"name": "get_weather"}]},
                            "greeter": {"name": "greeter", "instructions": ""}}}
GROUNDING = {"groundingChunks": [{"web": {"uri": "https://example.com/rome", "title": "Rome"}}]}
TURNS = [
    # said along the way: an aside, a forecast before the tool answered, a disputed claim
    {"invocationId": "t1", "userContent": text("user", "What is the weather in Paris?"),
     "finalResponse": text("model", "Expect sunny skies over Paris. Rome is rain today."), "appDetails": AGENTS,
     "intermediateData": {"invocationEvents": [
         {"author": "forecaster", "content": {"role": "model", "parts": [
             {"text": "Let me look that up. Paris is sunny."},
             {"functionCall": {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}}]}},
         {"author": "forecaster", "content": {"role": "user", "parts": [
             {"functionResponse": {"id": "c1", "name": "get_weather", "response": {"forecast": "sunny"}}}]}},
         {"author": "greeter", "groundingMetadata": GROUNDING, "content": {"role": "model", "parts": [
             {"text": "Paris is often rain."}]}}]}},
    # no text anywhere: nothing to judge
    {"invocationId": "t2", "userContent": text("user", "And in Rome?"), "intermediateData": {"invocationEvents": []}},
    # the segmenter finds no sentence: the turn is not scored
    {"invocationId": "t3", "userContent": text("user", "Hmm?"), "finalResponse": text("model", "Hmm.")},
]


def chronicle_judge(criterion: dict) -> dict:
    metric = EvalMetric(metric_name="hallucinations_v1", criterion=BaseCriterion.model_validate(criterion))
    result = asyncio.run(HallucinationsV1Evaluator(metric).evaluate_invocations(
        [Invocation.model_validate(t) for t in TURNS], [Invocation.model_validate(t) for t in TURNS]))
    return {"overall": [result.overall_score, result.overall_eval_status.name],
            "turns": [[r.score, r.eval_status.name] for r in result.per_invocation_results]}


@pytest.mark.parametrize("intermediate", [True, False])
def test_each_text_is_judged_against_what_the_agent_knew_then_as_google_adk(intermediate, adk_python,
                                                                            gemini_server, monkeypatch):
    criterion = {"threshold": 0.8, "evaluate_intermediate_nl_responses": intermediate,
                 "judge_model_options": {"judge_model": "gemini-2.0-flash"}}
    use_judge(gemini_server, monkeypatch)
    theirs = adk_judge({"metric": "hallucinations_v1", "criterion": criterion, "actual": TURNS, "expected": TURNS},
                       gemini_server.url)
    their_requests = sent(gemini_server)
    use_judge(gemini_server, monkeypatch)
    ours = chronicle_judge(criterion)
    assert sent(gemini_server) == their_requests
    assert ours == theirs
    if intermediate:
        # t1's texts: the aside and "sunny" before the tool answered (1/2), "often rain" after (0), the final
        # answer (sunny, rain contradicted, today. unsupported: 1/3)
        assert ours["turns"][0] == [pytest.approx((0.5 + 0 + 1 / 3) / 3), "FAILED"]
        assert len(their_requests) == 2 * 3 + 1  # t3: the split only
    else:
        assert ours["turns"][0] == [pytest.approx(1 / 3), "FAILED"]
    assert ours["turns"][1:] == [[None, "NOT_EVALUATED"], [None, "NOT_EVALUATED"]]
    assert ours["overall"] == [ours["turns"][0][0], "FAILED"]


def test_the_labels_are_read_as_google_adk_reads_them():
    answer = ("sentence: A.\nLABEL: Supported \nrationale: r\nsupporting_excerpt: x\ncontradicting_excerpt: null\n"
              "sentence: B.\nlabel: not_applicable\nrationale: r\nsupporting_excerpt: null\n"
              "contradicting_excerpt: null\nsentence: C.\nlabel: disputed\nrationale: missing excerpts")
    assert labels_of(answer) == ["supported", "not_applicable"]  # a block missing a field is not read


def test_a_hallucinations_criterion_it_cannot_read_is_refused_before_any_call():
    with pytest.raises(JudgeCriterionError):
        HallucinationsV1Evaluator(EvalMetric(metric_name="hallucinations_v1", criterion=BaseCriterion.model_validate(
            {"threshold": 0.5, "evaluate_intermediate_nl_responses": "sometimes"})))


def test_a_judge_call_that_fails_leaves_its_text_unscored(gemini_server, monkeypatch):
    """As in google-adk: the turn's score is over the texts judged."""
    use_judge(gemini_server, monkeypatch)
    gemini_server.reply_error(404, "models/gemini-2.0-flash is not found")  # splitting t1's first text
    found = chronicle_judge({"threshold": 0.1, "evaluate_intermediate_nl_responses": True,
                             "judge_model_options": {"judge_model": "gemini-2.0-flash"}})
    assert found["turns"][0] == [pytest.approx((0 + 1 / 3) / 2), "PASSED"]


def test_a_judge_without_credentials_fails_the_case_with_the_reason(monkeypatch):
    """Not a NOT_EVALUATED that a report would hide: the judge was never asked."""
    for key in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(key, raising=False)
    with pytest.raises(InvalidArgumentError, match="Gemini needs credentials"):
        chronicle_judge({"threshold": 0.5})
