"""BaseCodeExecutor: runs code (google-adk's `code_executors.base_code_executor`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from pydantic import BaseModel

if TYPE_CHECKING:
    from runtime.code_executors.code_execution_utils import CodeExecutionInput, CodeExecutionResult


class BaseCodeExecutor(BaseModel):
    """Runs a piece of code and returns its output.

    As an LlmAgent's ``code_executor`` Chronicle supports BuiltInCodeExecutor only (the model runs
    the code it writes); an agent refuses any other there rather than ignore it. Executors that
    run code here (UnsafeLocalCodeExecutor) serve a SkillToolset's scripts."""

    optimize_data_file: bool = False
    stateful: bool = False
    error_retry_attempts: int = 2
    code_block_delimiters: list[tuple[str, str]] = [("```tool_code\n", "\n```"), ("```python\n", "\n```")]
    execution_result_delimiters: tuple[str, str] = ("```tool_output\n", "\n```")
    timeout_seconds: Optional[int] = None

    def execute_code(self, invocation_context: Any, code_execution_input: CodeExecutionInput) -> CodeExecutionResult:
        raise NotImplementedError(f"{type(self).__name__} does not run code itself")
