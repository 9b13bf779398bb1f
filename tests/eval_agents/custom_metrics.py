"""Metrics of a user's own for the eval tests, named in a config's `custom_metrics`; the same file runs on
google-adk 2.13 (in .venv-adk) and on Chronicle."""

try:  # google-adk's names where it is installed, Chronicle's (the same names) elsewhere
    from google.adk.evaluation.eval_metrics import EvalStatus
    from google.adk.evaluation.evaluator import EvaluationResult, PerInvocationResult
except ImportError:
    from runtime.evaluation.eval_metrics import EvalStatus
    from runtime.evaluation.evaluator import EvaluationResult, PerInvocationResult


def _text(content) -> str:
    return "".join(p.text or "" for p in (content.parts or [])) if content else ""


def short_answers(eval_metric, actual_invocations, expected_invocations=None, conversation_scenario=None):
    """1.0 for a turn whose answer is at most 40 characters, else 0.0; the case passes when every turn does."""
    turns = []
    for actual in actual_invocations:
        score = 1.0 if len(_text(actual.final_response)) <= 40 else 0.0
        turns.append(PerInvocationResult(actual_invocation=actual, score=score,
                                         eval_status=EvalStatus.PASSED if score == 1.0 else EvalStatus.FAILED))
    overall = sum(t.score for t in turns) / len(turns) if turns else None
    return EvaluationResult(overall_score=overall, per_invocation_results=turns,
                            overall_eval_status=EvalStatus.PASSED if overall == 1.0 else EvalStatus.FAILED)


async def same_calls_as_expected(eval_metric, actual_invocations, expected_invocations=None,
                                 conversation_scenario=None):
    """An async metric: the share of turns that called exactly the expected tools (names only)."""
    def names(invocation):
        data = invocation.intermediate_data
        events = getattr(data, "invocation_events", None) or []
        return [p.function_call.name for e in events for p in (e.content.parts if e.content else []) or []
                if p.function_call] or [u.name for u in getattr(data, "tool_uses", None) or []]
    turns = [PerInvocationResult(actual_invocation=a, expected_invocation=e,
                                 score=float(names(a) == names(e)), eval_status=EvalStatus.NOT_EVALUATED)
             for a, e in zip(actual_invocations, expected_invocations or [])]
    overall = sum(t.score for t in turns) / len(turns) if turns else None
    return EvaluationResult(overall_score=overall, per_invocation_results=turns,
                            overall_eval_status=EvalStatus.PASSED if overall and overall >= 0.5 else EvalStatus.FAILED)
