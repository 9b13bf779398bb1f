"""Eval results as files: `AGENTS_DIR/APP/.adk/eval_history/APP_SET_TIME.evalset_result.json` (ADK's place)."""

from __future__ import annotations

import os
import time

from .common import EvalNotFoundError as NotFoundError

from .eval_result import EvalCaseResult, EvalSetResult
from .local_eval_sets_manager import check_id

EVAL_HISTORY_DIR = os.path.join(".adk", "eval_history")
EVAL_SET_RESULT_FILE_EXTENSION = ".evalset_result.json"


class LocalEvalSetResultsManager:
    def __init__(self, agents_dir: str):
        self._agents_dir = agents_dir

    def _folder(self, app_name: str) -> str:
        check_id("app_name", app_name)
        return os.path.join(self._agents_dir, app_name, EVAL_HISTORY_DIR)

    def save_eval_set_result(self, app_name: str, eval_set_id: str, eval_case_results: list[EvalCaseResult]) -> str:
        """Writes the results; returns the result id."""
        check_id("eval_set_id", eval_set_id)
        now = time.time()
        result_id = f"{app_name}_{eval_set_id}_{now}"
        result = EvalSetResult(eval_set_result_id=result_id, eval_set_result_name=result_id, eval_set_id=eval_set_id,
                               eval_case_results=eval_case_results, creation_timestamp=now)
        os.makedirs(self._folder(app_name), exist_ok=True)
        with open(os.path.join(self._folder(app_name), result_id + EVAL_SET_RESULT_FILE_EXTENSION), "w",
                  encoding="utf-8") as f:
            f.write(result.model_dump_json(indent=2))
        return result_id

    def get_eval_set_result(self, app_name: str, eval_set_result_id: str) -> EvalSetResult:
        path = os.path.join(self._folder(app_name), eval_set_result_id + EVAL_SET_RESULT_FILE_EXTENSION)
        if os.path.basename(eval_set_result_id) != eval_set_result_id or not os.path.exists(path):
            raise NotFoundError(f"Eval set result `{eval_set_result_id}` not found.")
        with open(path, encoding="utf-8") as f:
            return EvalSetResult.model_validate_json(f.read())

    def list_eval_set_results(self, app_name: str) -> list[str]:
        folder = self._folder(app_name)
        if not os.path.isdir(folder):
            return []
        return sorted(f.removesuffix(EVAL_SET_RESULT_FILE_EXTENSION) for f in os.listdir(folder)
                      if f.endswith(EVAL_SET_RESULT_FILE_EXTENSION))
