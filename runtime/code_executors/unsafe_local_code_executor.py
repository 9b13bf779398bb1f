"""UnsafeLocalCodeExecutor: runs code in a child Python interpreter on this machine, with no
sandbox (google-adk's `code_executors.unsafe_local_code_executor`). For trusted code only, such
as a SkillToolset's own scripts."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from typing import Any, Optional

from pydantic import Field

from domain.errors import InvalidArgumentError
from runtime.code_executors.base_code_executor import BaseCodeExecutor
from runtime.code_executors.code_execution_utils import CodeExecutionInput, CodeExecutionResult

_GRACE_SECONDS = 5  # after SIGTERM, before SIGKILL

# The child reads the program from stdin (argv is capped in size) and prints a failure's traceback
# without this runner's own frame, so the model sees its code and nothing else.
_RUNNER = """
import sys, traceback
_name = sys.argv.pop(1)
_scope = {'__name__': _name} if _name else {}
_source = sys.stdin.buffer.read().decode('utf-8')
try:
    exec(compile(_source, '<code>', 'exec'), _scope, _scope)
except SystemExit:
    raise
except BaseException as exc:
    traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next, file=sys.stderr)
    sys.exit(1)
"""

_MAIN_GUARD = re.compile(r"if\s+__name__\s*==\s*['\"]__main__['\"]")


class UnsafeLocalCodeExecutor(BaseCodeExecutor):
    stateful: bool = Field(default=False, frozen=True, exclude=True)
    optimize_data_file: bool = Field(default=False, frozen=True, exclude=True)
    timeout_seconds: Optional[int] = 300  # None waits forever

    def __init__(self, **data: Any) -> None:
        for flag in ("stateful", "optimize_data_file"):
            if data.get(flag):
                raise InvalidArgumentError(f"Cannot set `{flag}=True` in UnsafeLocalCodeExecutor.")
        super().__init__(**data)

    def execute_code(self, invocation_context: Any, code_execution_input: CodeExecutionInput) -> CodeExecutionResult:
        code = code_execution_input.code
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # the app's modules stay importable
        env["PYTHONIOENCODING"] = "utf-8"  # output is a pipe: never the host locale's encoding
        run_name = "__main__" if _MAIN_GUARD.search(code) else ""
        process = subprocess.Popen(
            [sys.executable, "-c", _RUNNER, run_name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            encoding="utf-8",
            errors="replace",
            env=env,
            start_new_session=True,  # a timeout then stops everything the code started
        )
        try:
            stdout, stderr = process.communicate(input=code, timeout=self.timeout_seconds)
        except subprocess.TimeoutExpired:
            stdout, stderr = _kill(process)
            note = f"Code execution timed out after {self.timeout_seconds} seconds."
            stderr = f"{stderr}\n{note}" if stderr else note
        else:
            if process.returncode == 0:
                stderr = ""  # a warning on stderr is not a failure; the exit status says which
            elif not stderr:
                stderr = f"Code execution exited with status {process.returncode}."
        return CodeExecutionResult(stdout=stdout, stderr=stderr, exit_code=process.returncode)


def _kill(process: subprocess.Popen) -> tuple[str, str]:
    """Stops a timed-out run and its children; returns what it wrote before."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except OSError:
            pass
        try:
            return process.communicate(timeout=_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            continue
    return "", ""
