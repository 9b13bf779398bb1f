"""Task-mode agents (`LlmAgent(mode="task")`, google-adk 2.13's): an agent that works on a task
over as many turns with the user as it needs, and says it is done by calling `finish_task` with
its result (shaped by its output_schema, else `{"result": text}`). As a workflow node its text
answers wait for the user's next message (runtime.workflow.agent_node) and finish_task's
arguments are its output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from runtime.tools.agent_tool import AgentTool
from runtime.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from runtime.models import LlmRequest
    from runtime.tools.tool_context import ToolContext

FINISH_TASK = "finish_task"
FINISHED = "Task completed."  # the call's result when its arguments fit: the task is done
WRAPPER_KEY = "result"  # a result that is not an object is this parameter of the call

INSTRUCTION = """\
Do NOT call `finish_task` prematurely. Use your available tools to
fully complete every aspect of the delegated task first. If the
task is unclear, ask the user for clarification before proceeding.
Once the task is fully complete, call `finish_task` by itself with
no accompanying text output."""


class DefaultTaskOutput(BaseModel):
    """Default output schema when no custom output_schema is provided.

    Used by FinishTaskTool to generate the function declaration when the
    task agent does not define an explicit output_schema.
    """

    # the declaration the model sees is google-adk 2.13's: its title, its text above, no extra keys
    model_config = ConfigDict(extra="forbid", title="_DefaultTaskOutput")

    result: str


class FinishTaskTool(BaseTool):
    """The tool a task-mode agent calls to hand in its result."""

    def __init__(self, agent: Any) -> None:
        schema = agent.output_schema if agent.output_schema is not None else DefaultTaskOutput
        self.adapter: TypeAdapter = TypeAdapter(schema)
        self.wrapper_key: Optional[str] = None if self.adapter.json_schema().get("type") == "object" else WRAPPER_KEY
        description = (
            "Signal that this agent has completed its delegated task. Call this when you have finished your "
            "delegated task."
        )
        if agent.output_schema is not None:
            description += " Pass the required output data in the parameters."
        super().__init__(name=FINISH_TASK, description=description)

    def _get_declaration(self) -> types.FunctionDeclaration:
        schema = self.adapter.json_schema()
        if self.wrapper_key:
            defs = schema.pop("$defs", None)
            schema = {"type": "object", "properties": {self.wrapper_key: schema}, "required": [self.wrapper_key]}
            if defs:
                schema["$defs"] = defs
        return types.FunctionDeclaration(name=self.name, description=self.description, parameters_json_schema=schema)

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        llm_request.append_instructions([INSTRUCTION])

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        try:
            self.adapter.validate_python(args.get(self.wrapper_key) if self.wrapper_key else args)
        except ValidationError as error:
            return {
                "error": (
                    f"Invoking `{self.name}()` failed due to validation errors:\n{error}\nYou could retry calling "
                    "this tool, but it is IMPORTANT for you to provide all the mandatory parameters with correct types."
                )
            }
        return FINISHED

    def result_of(self, args: dict[str, Any]) -> Any:
        """The task's result, from the arguments of a finish_task call that succeeded."""
        if self.wrapper_key and self.wrapper_key in args:
            return args[self.wrapper_key]
        return args


def finish_tool(agent: Any) -> Optional[FinishTaskTool]:
    return next((t for t in getattr(agent, "tools", ()) if isinstance(t, FinishTaskTool)), None)


def finished(event: Any) -> bool:
    """Whether `event` holds finish_task's success (the task is done)."""
    return any(
        r.name == FINISH_TASK and r.response == {"result": FINISHED} for r in event.get_function_responses()
    )


class TaskAgentTool(AgentTool):
    """A task-mode sub-agent as its chat agent's tool (google-adk 2.13's task delegation): a call
    runs the sub-agent as a workflow node runs a task agent (runtime.workflow.agent_node) at
    `<agent path>/<sub-agent>@<call id>`, on the branch `<sub-agent>@<call id>`, its first user turn
    the call's arguments. Each text answer ends the invocation waiting for the user, whose reply
    runs the call again (the task goes on: runtime.agents.human_requests); finish_task's arguments
    are the call's result, which ADK records as the user's (`answers_as_user`)."""

    emits_events = True  # the task's events come before the call's result (runtime.tools.tool_events)
    answers_as_user = True

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        from runtime.tools.declarations import build_function_declaration

        schema = getattr(self.agent, "input_schema", None) or _DefaultTaskInput
        declaration = build_function_declaration(schema, name=self.name)
        declaration.description = f"{self.agent.description or ''}{DELEGATION_NOTE}".strip()
        return declaration

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        from runtime.tools import tool_events
        from runtime.workflow.graph import as_node
        from runtime.workflow.node_tool import run_as_tool

        task = as_node(self.agent).model_copy(update={"delegated": True})
        output = await run_as_tool(task, self.name, dict(args), tool_context)
        if output is tool_events.WAITING or isinstance(output, dict):
            return output
        return {"output": output}


# A delegated task's input when its agent sets no input_schema (named, and left without a docstring,
# as google-adk 2.13's: the model sees its JSON schema).
class _DefaultTaskInput(BaseModel):
    request: str = Field(description="Detailed instructions or context for the task sub-agent.")


DELEGATION_NOTE = (
    "\nIMPORTANT: This tool delegates execution to a specialized agent. Do NOT call this tool in parallel with "
    "any other tools."
)


def task_tools(sub_agents: list[Any]) -> list[TaskAgentTool]:
    """The tools a chat agent gets for its task-mode sub-agents."""
    return [TaskAgentTool(a) for a in sub_agents if getattr(a, "mode", None) == "task"]
