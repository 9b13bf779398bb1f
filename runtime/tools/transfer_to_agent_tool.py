"""The tool an LlmAgent calls to hand the conversation to another agent."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from runtime.tools.base_tool import BaseTool
from runtime.tools.declarations import build_function_declaration
from runtime.tools.tool_context import ToolContext

TRANSFER_TO_AGENT = "transfer_to_agent"


def transfer_to_agent(agent_name: str, tool_context: ToolContext, *, transfer_reason: str = "") -> None:
    """Transfer the query to another agent.

    Use this tool to hand off control to another agent that is more suitable to
    answer the user's query according to the agent's description.

    Args:
      agent_name: the agent name to transfer to.
      transfer_reason: the reason for transferring to the target agent.
    """
    tool_context.actions.transfer_to_agent = agent_name
    tool_context.actions.transfer_reason = transfer_reason or None


# The declaration's words are google-adk 2.13's (the docstring above): the model must be prompted
# as on ADK. Without a reason, the reason's line and parameter go.
_REASON_LINE = "\n  transfer_reason: the reason for transferring to the target agent."


class TransferToAgentTool(BaseTool):
    """`transfer_to_agent(agent_name)` restricted to the agents this agent may transfer to; with
    ``include_transfer_reason`` the model also says why (kept in ``actions.transfer_reason``)."""

    def __init__(self, agent_names: Sequence[str], include_transfer_reason: bool = False):
        declaration = build_function_declaration(transfer_to_agent)
        if not include_transfer_reason:
            declaration.description = declaration.description.replace(_REASON_LINE, "")
            del declaration.parameters_json_schema["properties"]["transfer_reason"]
        super().__init__(name=TRANSFER_TO_AGENT, description=declaration.description)
        self.agent_names = list(agent_names)
        self.include_transfer_reason = include_transfer_reason
        declaration.parameters_json_schema["properties"]["agent_name"]["enum"] = self.agent_names
        self._declaration = declaration
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


def transfer_instructions(agent: Any, targets: Sequence[Any]) -> str:
    """What an agent with transfer targets is told of them, in google-adk 2.13's words and layout."""
    listed = "\n".join(f"\nAgent name: {t.name}\nAgent description: {t.description}\n" for t in targets)
    names = ", ".join(f"`{name}`" for name in sorted(t.name for t in targets))
    text = (
        f"\nYou have a list of other agents to transfer to:\n\n{listed}\n\n"
        "If you are the best to answer the question according to your description,\nyou can answer it.\n\n"
        "If another agent is better for answering the question according to its\n"
        f"description, call `{TRANSFER_TO_AGENT}` function to transfer the question to that\n"
        "agent. When transferring, do not generate any text other than the function\ncall.\n\n"
        f"**NOTE**: the only available agents for `{TRANSFER_TO_AGENT}` function are\n{names}.\n"
    )
    if agent.parent_agent is not None and not agent.disallow_transfer_to_parent:
        text += (
            "\nIf neither you nor the other agents are best for the question, transfer to your parent agent "
            f"{agent.parent_agent.name}.\n"
        )
    return text
