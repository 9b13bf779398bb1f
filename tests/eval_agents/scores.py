"""What the eval differential test compares, read the same way from either side's `.evalset_result.json`."""

CONVERSATIONS = {
    "paris_then_rome": ["What is the weather in Paris?", "And in Rome?"],
    "tokyo": ["weather in Tokyo"],
    "bangkok_then_chat": ["weather in Bangkok", "thanks, bye"],
}

CONFIGS = {  # test_config.json files, each scored on google-adk and on Chronicle
    "test_config": {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}},
    "lenient_config": {"criteria": {
        "tool_trajectory_avg_score": {"threshold": 0.5, "match_type": "IN_ORDER", "ignore_args": True},
        "response_match_score": 0.3,
    }},
    # metrics of the user's own: a sync and an async function (tests/eval_agents/custom_metrics.py)
    "custom_config": {
        "criteria": {"short_answers": 1.0, "same_calls": {"threshold": 0.5}, "response_match_score": 0.3},
        "custom_metrics": {
            "short_answers": {"code_config": {"name": "tests.eval_agents.custom_metrics.short_answers"}},
            "same_calls": {"code_config": {"name": "tests.eval_agents.custom_metrics.same_calls_as_expected"},
                           "description": "the expected tools, by name"},
        },
    },
}

TIMED = "invocation_duration_v1"  # wall-clock seconds differ run to run, on any runtime


def scores_of(result: dict) -> dict:
    """Per case: its final status, and per metric its overall score and status and each turn's score."""
    cases = {}
    for case in result["eval_case_results"]:
        metrics = {}
        for m in case["overall_eval_metric_results"]:
            if m["metric_name"] != TIMED:
                metrics[m["metric_name"]] = {"score": m["score"], "status": m["eval_status"], "turns": []}
        for turn in case["eval_metric_result_per_invocation"]:
            for m in turn["eval_metric_results"]:
                if m["metric_name"] != TIMED:
                    metrics[m["metric_name"]]["turns"].append(m["score"])
        cases[case["eval_id"]] = {"status": case["final_eval_status"], "metrics": metrics}
    return cases
