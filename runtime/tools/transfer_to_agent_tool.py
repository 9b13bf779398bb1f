"""The tool an LlmAgent calls to hand the conversation to another agent."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from google.genai import types

from runtime.tools.base_tool import BaseTool
from runtime.tools.tool_context import ToolContext

TRANSFER_TO_AGENT = "transfer_to_agent"


def transfer_to_agent(agent_name: str, tool_context: ToolContext, *, transfer_reason: str = "") -> None:
    """Transfers the question to another agent (ADK's function, for use in custom tools)."""
    tool_context.actions.transfer_to_agent = agent_name
    tool_context.actions.transfer_reason = transfer_reason or None


class TransferToAgentTool(BaseTool):
    """`transfer_to_agent(agent_name)` restricted to the agents this agent may transfer to; with
    ``include_transfer_reason`` the model also says why (kept in ``actions.transfer_reason``)."""

    def __init__(self, agent_names: Sequence[str], include_transfer_reason: bool = False):
        super().__init__(
            name=TRANSFER_TO_AGENT,
            description="Transfer the question to another agent. Use it when another agent is better "
            "suited to answer, according to the agents' descriptions.",
        )
        self.agent_names = list(agent_names)
        self.include_transfer_reason = include_transfer_reason
        properties = {
            "agent_name": types.Schema(
                type=types.Type.STRING,
                description="The name of the agent to transfer to.",
                enum=self.agent_names or None,
            )
        }
        if include_transfer_reason:
            properties["transfer_reason"] = types.Schema(
                type=types.Type.STRING, description="Why the other agent is better suited."
            )
        self._declaration = types.FunctionDeclaration(
            name=TRANSFER_TO_AGENT,
            description=self.description,
            parameters=types.Schema(
                type=types.Type.OBJECT,
                properties=properties,
                required=["agent_name"],
            ),
        )

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        return self._declaration

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        agent_name = (args or {}).get("agent_name")
        if agent_name not in self.agent_names:
            return {
                "error": f"Cannot transfer to {agent_name!r}: the agents you can transfer to are "
                f"{', '.join(self.agent_names)}."
            }
        reason = (args or {}).get("transfer_reason") if self.include_transfer_reason else None
        transfer_to_agent(agent_name, tool_context, transfer_reason=reason if isinstance(reason, str) else "")
        return None
