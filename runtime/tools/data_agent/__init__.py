"""Data agents (google-adk 2.13's `tools.data_agent`): Google Cloud's Gemini Data Analytics
agents as tools. The service is Google's, so in Chronicle the tools are declared as in ADK and
refuse when called (see data_agent_tool)."""

from __future__ import annotations

from runtime.tools.data_agent.config import DataAgentToolConfig
from runtime.tools.data_agent.credentials import DataAgentCredentialsConfig
from runtime.tools.data_agent.data_agent_toolset import DataAgentToolset

__all__ = ["DataAgentCredentialsConfig", "DataAgentToolConfig", "DataAgentToolset"]
