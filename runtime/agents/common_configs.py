"""The references an Agent Config uses (google-adk 2.13's `agents.common_configs`)."""

from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, ConfigDict, model_validator


class CodeConfig(BaseModel):
    """An object by dotted name: a function, a tool, a callback (`name: my_pkg.module.thing`)."""

    model_config = ConfigDict(extra="forbid")

    name: str


class AgentRefConfig(BaseModel):
    """Another agent: its config file (relative to the referencing one) or an object by dotted name."""

    model_config = ConfigDict(extra="forbid")

    config_path: Optional[str] = None
    code: Optional[str] = None

    @model_validator(mode="after")
    def _exactly_one(self) -> AgentRefConfig:
        if (self.config_path is None) == (self.code is None):
            raise ValueError("An agent reference needs exactly one of config_path or code.")
        return self
