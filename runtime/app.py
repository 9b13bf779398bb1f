"""An App: the root agent plus what applies to the whole application (plugins, compaction,
resumability)."""

from __future__ import annotations

import re
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from domain.errors import InvalidArgumentError
from runtime.agents.context_cache_config import ContextCacheConfig
from runtime.compaction import EventsCompactionConfig

_APP_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_-]*$")


def validate_app_name(name: str) -> None:
    """Refuses an app name google-adk 2.13 refuses, in its words (code may match on them)."""
    if not _APP_NAME.match(name):
        raise InvalidArgumentError(
            f"Invalid app name '{name}': must start with a letter and can only consist of letters, digits, "
            "underscores, and hyphens."
        )
    if name == "user":
        raise InvalidArgumentError("App name cannot be 'user'; reserved for end-user input.")


class ResumabilityConfig(BaseModel):
    """`is_resumable=True`: a long-running tool call pauses the invocation, and
    `Runner.run_async(invocation_id=..., new_message=<FunctionResponse>)` resumes it (so does
    `invocation_id=...` alone, after a crash). Agents record when they finish, so a resumed
    invocation never re-runs a finished agent or a tool whose result is stored. See runtime.resume."""

    is_resumable: bool = False


class App(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    name: str
    root_agent: Any  # a BaseAgent or a workflow node (typed loosely: agents import this module's siblings)
    plugins: list[Any] = Field(default_factory=list)
    events_compaction_config: Optional[EventsCompactionConfig] = None
    """Summarise long sessions for the model (see runtime.compaction); the log keeps every event."""
    context_cache_config: Optional[ContextCacheConfig] = None
    """Held for ADK's API; Chronicle sends every request whole (runtime.agents.context_cache_config)."""
    resumability_config: Optional[ResumabilityConfig] = None

    @model_validator(mode="after")
    def _check_name(self) -> "App":
        validate_app_name(self.name)
        return self

    @field_validator("root_agent")
    @classmethod
    def _check_agent(cls, agent: Any) -> Any:
        from runtime.agents.base_agent import BaseAgent
        from runtime.workflow import BaseNode, as_root_agent

        if isinstance(agent, BaseAgent):
            return agent
        if isinstance(agent, BaseNode):  # a workflow node other than a Workflow: run as a one-node workflow
            return as_root_agent(agent)
        raise InvalidArgumentError(
            f"App.root_agent must be an agent (e.g. LlmAgent) or a workflow node, got {type(agent).__name__}"
        )

    @field_validator("plugins")
    @classmethod
    def _check_plugins(cls, plugins: list[Any]) -> list[Any]:
        from runtime.plugins.base_plugin import BasePlugin

        for plugin in plugins:
            if not isinstance(plugin, BasePlugin):
                raise InvalidArgumentError(
                    f"App.plugins must hold BasePlugin instances, got {type(plugin).__name__}"
                )
        return plugins
