"""The rules LlmAgent's fields are checked against when an agent is built (its validators call
these): what Chronicle refuses, and where a misplaced setting belongs instead."""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types

from domain.errors import InvalidArgumentError
from runtime.agents import static_instruction as static
from runtime.code_executors import BaseCodeExecutor, BuiltInCodeExecutor

# GenerateContentConfig fields that LlmAgent has a field of its own for.
_OWNED_SETTINGS = {"system_instruction": "instruction", "response_schema": "output_schema"}


def refuse_misplaced_settings(agent_fields: Any, data: Any) -> Any:
    """`LlmAgent(temperature=0.2)` is refused with where the setting goes, as google-adk does."""
    if not isinstance(data, dict):
        return data
    misplaced = [k for k in data if k not in agent_fields and k in types.GenerateContentConfig.model_fields]
    for key in misplaced:
        if key in _OWNED_SETTINGS:
            raise InvalidArgumentError(
                f"`{key}` must be set via LlmAgent.{_OWNED_SETTINGS[key]}, not via LlmAgent({key}=...)."
            )
    if misplaced:
        example = ", ".join(f"{k}=..." for k in misplaced)
        raise InvalidArgumentError(
            f"{', '.join(misplaced)}: generation settings go in "
            f"generate_content_config=types.GenerateContentConfig({example}), not in LlmAgent(...)."
        )
    return data


def check_static_instruction(value: Any) -> Any:
    if value is not None:
        static.static_text(value)  # refuses what cannot be sent
    return value


def check_code_executor(value: Optional[BaseCodeExecutor]) -> Optional[BaseCodeExecutor]:
    if value is not None and not isinstance(value, BuiltInCodeExecutor):
        raise InvalidArgumentError(
            f"code_executor={type(value).__name__}(...) is not supported: Chronicle runs no "
            "model-written code itself. Use BuiltInCodeExecutor() (the model runs the code); to run "
            "a skill's scripts, give the executor to the toolset: SkillToolset(code_executor=...)."
        )
    return value


def check_mode(value: Any) -> Any:
    if value not in (None, "chat", "task", "single_turn"):
        raise InvalidArgumentError(
            f"LlmAgent mode={value!r} is not one of 'chat' (sub-agents reached by transfer_to_agent), 'task' "
            "and 'single_turn'."
        )
    return value


def check_generate_content_config(config: Optional[types.GenerateContentConfig]) -> Optional[types.GenerateContentConfig]:
    if config is None:
        return None
    if config.tools:
        raise InvalidArgumentError("Put tools in LlmAgent(tools=[...]), not in generate_content_config.")
    if config.system_instruction:
        raise InvalidArgumentError(
            "Put the system instruction in LlmAgent(instruction=...), not in generate_content_config."
        )
    if config.response_schema:
        raise InvalidArgumentError("Put the response schema in LlmAgent(output_schema=...), not in generate_content_config.")
    return config
