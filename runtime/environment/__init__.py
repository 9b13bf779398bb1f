"""Agent environments (google-adk's `google.adk.environment`): a working folder where commands run
and files are read and written. A SkillToolset can run skills' scripts in one."""

from runtime.environment._base_environment import BaseEnvironment, ExecutionResult
from runtime.environment._local_environment import LocalEnvironment

__all__ = ["BaseEnvironment", "ExecutionResult", "LocalEnvironment"]
