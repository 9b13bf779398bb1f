"""What a judge is told about the agents that took a turn: each one's instructions and tools, as its first
model request of the turn carried them (google-adk 2.13's AppDetails)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .common import EvalBaseModel


class AgentDetails(EvalBaseModel):
    name: str
    instructions: str = ""
    tool_declarations: list[Any] = Field(default_factory=list)


class AppDetails(EvalBaseModel):
    agent_details: dict[str, AgentDetails] = Field(default_factory=dict)

    def get_developer_instructions(self, agent_name: str) -> str:
        if agent_name not in self.agent_details:
            raise ValueError(f"`{agent_name}` not found in the agentic system.")
        return self.agent_details[agent_name].instructions

    def get_tools_by_agent_name(self) -> dict[str, list[Any]]:
        return {name: details.tool_declarations for name, details in self.agent_details.items()}
