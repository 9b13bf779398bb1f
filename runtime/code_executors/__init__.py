"""Code executors (google-adk's `google.adk.code_executors`): an LlmAgent's `code_executor=`."""

from runtime.code_executors.base_code_executor import BaseCodeExecutor
from runtime.code_executors.built_in_code_executor import BuiltInCodeExecutor

__all__ = ["BaseCodeExecutor", "BuiltInCodeExecutor"]
