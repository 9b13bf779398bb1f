"""Evaluating agents as google-adk 2.13 does (`.evalset.json`, `test_config.json`, `AgentEvaluator`, the
locally computed metrics), and eval sets taken from the log. See docs/eval.md."""

from .agent_evaluator import AgentEvaluator
from .eval_case import EvalCase, Invocation, SessionInput
from .eval_config import EvalConfig
from .eval_metrics import EvalMetric, EvalStatus, PrebuiltMetrics
from .eval_result import EvalCaseResult, EvalSetResult
from .eval_set import EvalSet
from .local_eval_set_results_manager import LocalEvalSetResultsManager
from .local_eval_sets_manager import LocalEvalSetsManager

__all__ = ["AgentEvaluator", "EvalCase", "EvalCaseResult", "EvalConfig", "EvalMetric", "EvalSet", "EvalSetResult",
           "EvalStatus", "Invocation", "LocalEvalSetResultsManager", "LocalEvalSetsManager", "PrebuiltMetrics",
           "SessionInput"]
