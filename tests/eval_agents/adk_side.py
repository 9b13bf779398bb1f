"""google-adk 2.13's side of the eval differential test (run in .venv-adk):

    python -m tests.eval_agents.adk_side make FOLDER    # an evalset of the agent's conversations + test_config.json
    python -m tests.eval_agents.adk_side score FOLDER   # ADK's scores of the agent on that evalset, as JSON
    python -m tests.eval_agents.adk_side rouge -        # ADK's ROUGE-1 F of each [candidate, reference] on stdin
    python -m tests.eval_agents.adk_side trajectory -   # ADK's trajectory scores of {criterion, pairs} on stdin
    python -m tests.eval_agents.adk_side load FILE      # the case ids and turn counts google-adk reads in an evalset
    python -m tests.eval_agents.adk_side judge -        # ADK's judge-model scores of {metric, criterion, actual,
                                                        # expected} on stdin (the judge at GOOGLE_GEMINI_BASE_URL)
    python -m tests.eval_agents.adk_side judged FOLDER [NAME]  # ADK's result file for the weather agent on
                                                        # FOLDER's NAME.evalset.json and NAME_config.json
                                                        # (NAME: judged by default)

`make` records the conversations with google-adk's Runner and turns each session into a case with
google-adk's own converter, as `adk web` does when a session is added to an eval set."""

import asyncio
import json
import os
import shutil
import sys

from tools.bench.eval import import_adk_evaluation

import_adk_evaluation()  # google-adk's eval modules import where google-cloud-aiplatform is absent

from google.adk.evaluation.agent_evaluator import AgentEvaluator
from google.adk.evaluation.eval_case import EvalCase, SessionInput
from google.adk.evaluation.eval_config import EvalConfig
from google.adk.evaluation.eval_set import EvalSet
from google.adk.evaluation.evaluation_generator import EvaluationGenerator
from google.adk.evaluation.local_eval_set_results_manager import LocalEvalSetResultsManager
from google.adk.runners import InMemoryRunner
from google.genai import types

from tests.eval_agents.scores import CONFIGS, CONVERSATIONS, scores_of

AGENT = "tests.eval_agents.weather_eval"


async def make(folder: str) -> None:
    from tests.eval_agents.weather_eval.agent import root_agent

    runner = InMemoryRunner(agent=root_agent, app_name="weather_eval")
    cases = []
    for eval_id, turns in CONVERSATIONS.items():
        session = await runner.session_service.create_session(app_name="weather_eval", user_id="ann")
        for text in turns:
            async for _ in runner.run_async(user_id="ann", session_id=session.id,
                                            new_message=types.Content(role="user", parts=[types.Part(text=text)])):
                pass
        session = await runner.session_service.get_session(app_name="weather_eval", user_id="ann",
                                                           session_id=session.id)
        cases.append(EvalCase(eval_id=eval_id, conversation=EvaluationGenerator.convert_events_to_eval_invocations(
            session.events), session_input=SessionInput(app_name="weather_eval", user_id="ann", state={})))
    eval_set = EvalSet(eval_set_id="weather", eval_cases=cases)
    with open(os.path.join(folder, "weather.evalset.json"), "w") as f:
        f.write(eval_set.model_dump_json(indent=2, exclude_none=True))
    for name, config in CONFIGS.items():
        with open(os.path.join(folder, f"{name}.json"), "w") as f:
            json.dump(config, f, indent=2)


async def score(folder: str) -> dict:
    with open(os.path.join(folder, "weather.evalset.json")) as f:
        eval_set = EvalSet.model_validate_json(f.read())
    found = {}
    for name in CONFIGS:
        with open(os.path.join(folder, f"{name}.json")) as f:
            config = EvalConfig.model_validate_json(f.read())
        results_dir = os.path.join(folder, "adk", name)
        shutil.rmtree(results_dir, ignore_errors=True)  # one result file: this run's
        try:
            await AgentEvaluator.evaluate_eval_set(
                agent_module=AGENT, eval_set=eval_set, eval_config=config, num_runs=1, print_detailed_results=False,
                app_name="weather_eval", eval_set_results_manager=LocalEvalSetResultsManager(results_dir))
            found[name + ":passed"] = True
        except AssertionError:
            found[name + ":passed"] = False
        history = os.path.join(results_dir, "weather_eval", ".adk", "eval_history")
        with open(os.path.join(history, os.listdir(history)[0])) as f:
            found[name] = scores_of(json.load(f))
    return found


async def judged(folder: str, name: str = "judged") -> dict:
    with open(os.path.join(folder, f"{name}.evalset.json")) as f:
        eval_set = EvalSet.model_validate_json(f.read())
    with open(os.path.join(folder, f"{name}_config.json")) as f:
        config = EvalConfig.model_validate_json(f.read())
    results_dir = os.path.join(folder, f"adk_{name}")
    try:
        await AgentEvaluator.evaluate_eval_set(
            agent_module=AGENT, eval_set=eval_set, eval_config=config, num_runs=1, print_detailed_results=False,
            app_name="weather_eval", eval_set_results_manager=LocalEvalSetResultsManager(results_dir))
    except AssertionError:
        pass
    history = os.path.join(results_dir, "weather_eval", ".adk", "eval_history")
    with open(os.path.join(history, os.listdir(history)[0])) as f:
        return json.load(f)


if __name__ == "__main__":
    command, folder = sys.argv[1], sys.argv[2]
    if command == "make":
        asyncio.run(make(folder))
    elif command == "trajectory":
        from google.adk.evaluation.eval_case import IntermediateData, Invocation
        from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
        from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator

        asked = json.load(sys.stdin)
        metric = EvalMetric(metric_name="tool_trajectory_avg_score",
                            criterion=ToolTrajectoryCriterion.model_validate(asked["criterion"]))
        turn = lambda calls: Invocation(user_content=types.Content(parts=[]),  # noqa: E731
                                        intermediate_data=IntermediateData(tool_uses=calls))
        result = TrajectoryEvaluator(eval_metric=metric).evaluate_invocations(
            [turn(a) for a, _ in asked["pairs"]], [turn(e) for _, e in asked["pairs"]])
        print(json.dumps([r.score for r in result.per_invocation_results]))
    elif command == "judge":
        from google.adk.evaluation.eval_case import Invocation
        from google.adk.evaluation.eval_metrics import EvalMetric, LlmAsAJudgeCriterion
        from google.adk.evaluation.metric_evaluator_registry import DEFAULT_METRIC_EVALUATOR_REGISTRY

        asked = json.load(sys.stdin)
        metric = EvalMetric(metric_name=asked["metric"],
                            criterion=LlmAsAJudgeCriterion.model_validate(asked["criterion"]))
        evaluator = DEFAULT_METRIC_EVALUATOR_REGISTRY.get_evaluator(metric)
        result = asyncio.run(evaluator.evaluate_invocations(
            [Invocation.model_validate(i) for i in asked["actual"]],
            [Invocation.model_validate(i) for i in asked["expected"]]))
        print(json.dumps({"overall": [result.overall_score, result.overall_eval_status.name],
                          "turns": [[r.score, r.eval_status.name] for r in result.per_invocation_results]}))
    elif command == "judged":
        print(json.dumps(asyncio.run(judged(folder, *sys.argv[3:4]))))
    elif command == "load":
        with open(folder) as f:
            eval_set = EvalSet.model_validate_json(f.read())
        print(json.dumps({c.eval_id: len(c.conversation) for c in eval_set.eval_cases}))
    elif command == "rouge":
        from google.adk.evaluation.final_response_match_v1 import _calculate_rouge_1_scores

        pairs = json.load(sys.stdin)
        print(json.dumps([_calculate_rouge_1_scores(c, r).fmeasure for c, r in pairs]))
    else:
        print(json.dumps(asyncio.run(score(folder)), sort_keys=True, ensure_ascii=False))
