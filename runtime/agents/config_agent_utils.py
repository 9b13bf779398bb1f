"""Building agents from Agent Config YAML (google-adk 2.13's `agents.config_agent_utils`).

The rules live in runtime.server.agent_config; these are ADK's public entry points onto them."""

from __future__ import annotations

import os
from typing import Any, List

from runtime.agents.common_configs import AgentRefConfig, CodeConfig


def from_config(config_path: str) -> Any:
    """The agent (or workflow) a YAML config file describes."""
    from runtime.server.agent_config import agent_from_config

    return agent_from_config(config_path)


def resolve_agent_reference(ref_config: AgentRefConfig, referencing_agent_config_abs_path: str) -> Any:
    """The agent a `{config_path}` (relative to the referencing config) or `{code}` reference names."""
    from runtime.server.agent_config import resolve_agent_reference as resolve

    return resolve(ref_config.model_dump(exclude_none=True), os.path.abspath(referencing_agent_config_abs_path))


def resolve_fully_qualified_name(name: str) -> Any:
    return resolve_code_reference(CodeConfig(name=name))


def resolve_code_reference(code_config: CodeConfig) -> Any:
    """The object a code reference names (standard-library names are refused, as in ADK)."""
    from runtime.server.agent_config import resolve_code

    return resolve_code(code_config.name)


def resolve_callbacks(callbacks_config: List[CodeConfig]) -> list[Any]:
    return [resolve_code_reference(config) for config in callbacks_config]
