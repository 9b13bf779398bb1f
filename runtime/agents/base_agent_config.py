"""The fields every Agent Config has (google-adk 2.13's `agents.base_agent_config`).

Chronicle builds agents from YAML in runtime.server.agent_config; this model is the shape for code
that reads or writes configs the way ADK's does."""

from __future__ import annotations

from typing import List, Optional

from pydantic import BaseModel, ConfigDict, Field

from runtime.agents.common_configs import AgentRefConfig, CodeConfig


class BaseAgentConfig(BaseModel):
    model_config = ConfigDict(extra="allow")  # an agent class's own fields ride along

    agent_class: str = Field(default="BaseAgent", description="The class of the agent.")
    name: str = Field(description="The name of the agent.")
    description: str = ""
    sub_agents: Optional[List[AgentRefConfig]] = None
    before_agent_callbacks: Optional[List[CodeConfig]] = None
    after_agent_callbacks: Optional[List[CodeConfig]] = None
