"""A metric of the user's own, named in `test_config.json`'s `custom_metrics` by the dotted path of a function
`(eval_metric, actual_invocations, expected_invocations, conversation_scenario) -> EvaluationResult` (sync or
async), as google-adk 2.13 calls it: the function decides the scores and statuses, so it gets the metric
without a threshold."""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

from domain.errors import InvalidArgumentError

from .eval_metrics import EvalMetric
from .evaluator import EvaluationResult, Evaluator


class CustomMetricImportError(InvalidArgumentError, ImportError):
    """The function a custom metric names cannot be imported, or is not a function."""


def metric_function(path: str) -> Callable[..., Any]:
    module_name, _, name = path.rpartition(".")
    if not module_name:
        raise CustomMetricImportError(f"Could not import custom metric function from {path}: give its dotted "
                                      "path, module.function.")
    try:
        found = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError) as e:
        raise CustomMetricImportError(f"Could not import custom metric function from {path}: {e}") from e
    if not callable(found):
        raise CustomMetricImportError(f"Custom metric {path} does not refer to a callable.")
    return found


class CustomMetricEvaluator(Evaluator):
    def __init__(self, eval_metric: EvalMetric, custom_function_path: str):
        self._metric = eval_metric.model_copy(deep=True, update={"threshold": None})
        self._function = metric_function(custom_function_path)

    async def evaluate_invocations(self, actual_invocations, expected_invocations=None, conversation_scenario=None
                                   ) -> EvaluationResult:
        found = self._function(self._metric, actual_invocations, expected_invocations, conversation_scenario)
        return await found if inspect.isawaitable(found) else found
