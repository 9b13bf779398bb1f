"""Single-turn sub-agents (`LlmAgent(mode="single_turn")` under a chat agent, google-adk 2.13's
`_SingleTurnAgentTool`): the chat agent calls such a sub-agent as a tool instead of transferring to
it. Its declaration is an AgentTool's (the agent's input_schema, else one `request` string); a
call runs the agent as a workflow node does, on the call's input alone (no identity instruction,
no session history), at `<agent path>/<sub-agent>@<n>` on the branch `<sub-agent>@<call id>`; its
events are committed before the call's result, which is its answer (its output_schema's dict, or
its text as `{"result": text}`).
"""

from __future__ import annotations

from typing import Any

from runtime.tools.agent_tool import AgentTool
from runtime.tools.tool_context import ToolContext

SINGLE_TURN = "single_turn"
DELEGATED_MODES = ("task", SINGLE_TURN)
"""The modes of sub-agents their chat agent calls as tools (never a transfer's target), as ADK."""


class SingleTurnAgentTool(AgentTool):
    """A single-turn sub-agent, called by its chat agent."""

    emits_events = True  # the sub-agent's events come before the call's result (runtime.tools.tool_events)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        from runtime.workflow.graph import as_node
        from runtime.workflow.node_tool import run_as_tool

        input_schema = getattr(self.agent, "input_schema", None)
        if input_schema is not None:
            try:
                node_input: Any = input_schema.model_validate(args)
            except Exception as error:  # noqa: BLE001 - told to the model, as ADK tells it
                return f"Error validating input: {error}"
        else:
            node_input = args.get("request")
        try:
            return await run_as_tool(as_node(self.agent), self.name, node_input, tool_context, numbered=True)
        except Exception as error:  # noqa: BLE001 - as ADK: the model reads what went wrong
            return f"Error running sub-agent: {error}"


def delegation_tools(sub_agents: list[Any]) -> list[Any]:
    """The tools a chat agent gets for its single-turn and task-mode sub-agents, in their order."""
    from runtime.agents.task_mode import TaskAgentTool

    kinds = {SINGLE_TURN: SingleTurnAgentTool, "task": TaskAgentTool}
    return [kinds[a.mode](a) for a in sub_agents if getattr(a, "mode", None) in kinds]
