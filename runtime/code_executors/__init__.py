"""Code executors (google-adk's `google.adk.code_executors`): BuiltInCodeExecutor for an LlmAgent
(the model runs its code), UnsafeLocalCodeExecutor for a SkillToolset's scripts. The container,
GKE, Vertex and Agent Engine executors are refused on import with what to use instead."""

from __future__ import annotations

from typing import Any

from runtime.code_executors.base_code_executor import BaseCodeExecutor
from runtime.code_executors.built_in_code_executor import BuiltInCodeExecutor
from runtime.code_executors.unsafe_local_code_executor import UnsafeLocalCodeExecutor

__all__ = ["BaseCodeExecutor", "BuiltInCodeExecutor", "UnsafeLocalCodeExecutor"]

_NOT_PORTED = {
    "ContainerCodeExecutor": "a Docker container",
    "GkeCodeExecutor": "a GKE sandbox",
    "VertexAiCodeExecutor": "Vertex AI's code interpreter",
    "AgentEngineSandboxCodeExecutor": "an Agent Engine sandbox",
}


def __getattr__(name: str) -> Any:
    if name in _NOT_PORTED:
        # An ImportError, as google-adk raises when the executor's extra is not installed.
        raise ImportError(
            f"{name} runs code in {_NOT_PORTED[name]}, which Chronicle does not call. Use "
            "UnsafeLocalCodeExecutor for trusted code (a SkillToolset's scripts), or BuiltInCodeExecutor "
            "to let the model run its code."
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
