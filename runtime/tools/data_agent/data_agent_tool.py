"""The data agent tools, declared with google-adk 2.13's names and parameters. Each needs Google
Cloud's Gemini Data Analytics API, which Chronicle does not include: called, each answers with
an error that says so (the model can tell the user), and nothing is sent anywhere."""

from __future__ import annotations

from typing import Any

from runtime.tools.data_agent.config import DataAgentToolConfig
from runtime.tools.tool_context import ToolContext

SERVICE = "Google Cloud's Gemini Data Analytics API"


def _refused(action: str) -> dict[str, Any]:
    return {
        "status": "ERROR",
        "error_details": (
            f"Cannot {action}: data agents run on {SERVICE}, which Chronicle does not include. "
            "Run this agent on google-adk with Google Cloud credentials to use data agents."
        ),
    }


def list_accessible_data_agents(
    project_id: str,
    credentials: Any,
    settings: DataAgentToolConfig | None = None,
    *,
    location: str | None = None,
    page_size: int | None = None,
    page_token: str | None = None,
) -> dict[str, Any]:
    """Lists the data agents of a Google Cloud project that the user can access.

    Args:
        project_id: The Google Cloud project.
        location: The location of the data agents (e.g. "global").
        page_size: How many data agents to list at most.
        page_token: The token of the page to list, from a previous answer.
    """
    return _refused("list data agents")


def get_data_agent_info(data_agent_name: str, credentials: Any, settings: DataAgentToolConfig | None = None) -> dict[str, Any]:
    """Gets a data agent's details by its resource name.

    Args:
        data_agent_name: projects/{project}/locations/{location}/dataAgents/{data_agent}.
    """
    return _refused("get the data agent")


def ask_data_agent(
    data_agent_name: str, query: str, *, credentials: Any, settings: DataAgentToolConfig, tool_context: ToolContext
) -> dict[str, Any]:
    """Asks a data agent a question about its data.

    Args:
        data_agent_name: projects/{project}/locations/{location}/dataAgents/{data_agent}.
        query: The question, in natural language.
    """
    return _refused("ask the data agent")


async def create_data_agent(
    project_id: str,
    data_agent_id: str,
    agent_config: str,
    location: str | None = None,
    *,
    credentials: Any,
    settings: DataAgentToolConfig,
) -> dict[str, Any]:
    """Creates a data agent.

    Args:
        project_id: The Google Cloud project.
        data_agent_id: The new data agent's id.
        agent_config: The data agent's configuration, as JSON.
        location: The location (e.g. "global").
    """
    return _refused("create a data agent")


async def update_data_agent(
    data_agent_name: str, agent_config: str, update_mask: str, *, credentials: Any, settings: DataAgentToolConfig
) -> dict[str, Any]:
    """Updates a data agent.

    Args:
        data_agent_name: projects/{project}/locations/{location}/dataAgents/{data_agent}.
        agent_config: The fields to change, as JSON.
        update_mask: The comma-separated names of the fields to change.
    """
    return _refused("update the data agent")


async def delete_data_agent(data_agent_name: str, *, credentials: Any, settings: DataAgentToolConfig) -> dict[str, Any]:
    """Deletes a data agent.

    Args:
        data_agent_name: projects/{project}/locations/{location}/dataAgents/{data_agent}.
    """
    return _refused("delete the data agent")
