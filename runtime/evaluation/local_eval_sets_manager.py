"""Eval sets as files: `AGENTS_DIR/APP/EVAL_SET_ID.evalset.json`, where google-adk 2.13 keeps them."""

from __future__ import annotations

import os
import re
import time
from typing import Optional

from pydantic import ValidationError

from domain.errors import AlreadyExistsError, InvalidArgumentError

from .common import EvalNotFoundError as NotFoundError

from .eval_case import EvalCase
from .eval_set import EvalSet

EVAL_SET_FILE_EXTENSION = ".evalset.json"
_ID = re.compile(r"^[a-zA-Z0-9_]+$")


def load_eval_set_from_file(eval_set_file_path: str) -> EvalSet:
    """The eval set in that file, or an InvalidArgumentError saying what is wrong with it."""
    with open(eval_set_file_path, encoding="utf-8") as f:
        content = f.read()
    try:
        return EvalSet.model_validate_json(content)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise InvalidArgumentError(f"{eval_set_file_path} is not an eval set: {where}: {first['msg']} "
                                   f"({e.error_count()} problem(s)).") from None


def write_eval_set(path: str, eval_set: EvalSet) -> None:
    """Writes the file whole (a temporary file renamed into place), as google-adk writes it."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    text = eval_set.model_dump_json(indent=2, exclude_unset=True, exclude_defaults=True, exclude_none=True)
    partial = f"{path}.partial"
    with open(partial, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(partial, path)


def check_id(kind: str, value: str) -> None:
    if not _ID.fullmatch(value or ""):
        raise InvalidArgumentError(f"Invalid {kind} {value!r}: use letters, digits and underscores.")


class LocalEvalSetsManager:
    def __init__(self, agents_dir: str):
        self._agents_dir = agents_dir

    def _path(self, app_name: str, eval_set_id: str) -> str:
        check_id("app_name", app_name)
        check_id("eval_set_id", eval_set_id)
        return os.path.join(self._agents_dir, app_name, eval_set_id + EVAL_SET_FILE_EXTENSION)

    def get_eval_set(self, app_name: str, eval_set_id: str) -> Optional[EvalSet]:
        path = self._path(app_name, eval_set_id)
        return load_eval_set_from_file(path) if os.path.exists(path) else None

    def create_eval_set(self, app_name: str, eval_set_id: str) -> EvalSet:
        path = self._path(app_name, eval_set_id)
        if os.path.exists(path):
            raise AlreadyExistsError(f"EvalSet {eval_set_id} already exists.")
        eval_set = EvalSet(eval_set_id=eval_set_id, name=eval_set_id, eval_cases=[],
                           creation_timestamp=time.time())
        write_eval_set(path, eval_set)
        return eval_set

    def list_eval_sets(self, app_name: str) -> list[str]:
        check_id("app_name", app_name)
        folder = os.path.join(self._agents_dir, app_name)
        if not os.path.isdir(folder):
            return []
        return sorted(f.removesuffix(EVAL_SET_FILE_EXTENSION) for f in os.listdir(folder)
                      if f.endswith(EVAL_SET_FILE_EXTENSION))

    def get_eval_case(self, app_name: str, eval_set_id: str, eval_case_id: str) -> Optional[EvalCase]:
        eval_set = self.get_eval_set(app_name, eval_set_id)
        return next((c for c in eval_set.eval_cases if c.eval_id == eval_case_id), None) if eval_set else None

    def add_eval_case(self, app_name: str, eval_set_id: str, eval_case: EvalCase) -> None:
        eval_set = self.get_eval_set(app_name, eval_set_id)
        if eval_set is None:
            raise NotFoundError(f"Eval set `{eval_set_id}` not found.")
        if any(c.eval_id == eval_case.eval_id for c in eval_set.eval_cases):
            raise AlreadyExistsError(f"Eval id `{eval_case.eval_id}` already exists in `{eval_set_id}` eval set.")
        eval_set.eval_cases.append(eval_case)
        write_eval_set(self._path(app_name, eval_set_id), eval_set)
