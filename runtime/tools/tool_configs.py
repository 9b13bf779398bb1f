"""How an agent config (YAML) names a tool, at google-adk 2.13's path: `name` (a built-in tool, or the dotted
path of a tool, tool class or function) and free `args`."""

from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, ConfigDict


class BaseToolConfig(BaseModel):
    """The base of a tool's own config class: no field it does not declare."""

    model_config = ConfigDict(extra="forbid")


class ToolArgsConfig(BaseModel):
    """A tool's `args`: any keys, handed to the tool (a class's constructor, a function's parameters)."""

    model_config = ConfigDict(extra="allow")


class ToolConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    args: Optional[ToolArgsConfig] = None
