"""AgentTool: another agent called like a function, in a session of its own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from runtime.utils.output_schema import parse_output
from runtime.artifacts.base import BaseArtifactService
from runtime.tools.base_tool import BaseTool
from runtime.tools.declarations import build_function_declaration
from runtime.tools.tool_context import ToolContext

if TYPE_CHECKING:
    from runtime.agents.base_agent import BaseAgent
    from runtime.models.llm_response import LlmResponse

# Where ADK keeps a sub-agent's grounding for the caller (temp: the invocation's only).
GROUNDING_KEY = "temp:_adk_grounding_metadata"


class AgentTool(BaseTool):
    """Runs `agent` on the model's request and returns its final answer (text, or the dict of its
    output_schema). The agent runs in a throwaway in-memory session that starts with a copy of
    the caller's state; the state changes it makes are copied back into the caller's state, and
    its artifacts are saved in the caller's session."""

    def __init__(
        self,
        agent: BaseAgent,
        skip_summarization: bool = False,
        *,
        include_plugins: bool = True,
        propagate_grounding_metadata: bool = False,
    ):
        super().__init__(name=agent.name, description=agent.description)
        self.propagate_grounding_metadata = propagate_grounding_metadata
        self.agent = agent
        self.skip_summarization = skip_summarization
        self.include_plugins = include_plugins

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        """As google-adk 2.13 declares an agent to a Gemini API model: the agent's input_schema (its
        JSON schema), else one `request` string; the agent's description."""
        input_schema = getattr(self.agent, "input_schema", None)
        if input_schema is not None:
            declaration = build_function_declaration(input_schema, name=self.name)
        else:
            declaration = types.FunctionDeclaration(name=self.name, parameters_json_schema={
                "type": "object", "properties": {"request": {"type": "string"}}, "required": ["request"]})
        declaration.description = self.agent.description
        return declaration

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        from runtime.runner import Runner
        from runtime.sessions import InMemorySessionService

        if self.skip_summarization:
            tool_context.actions.skip_summarization = True
        input_schema = getattr(self.agent, "input_schema", None)
        if input_schema is not None:
            text = input_schema.model_validate(args).model_dump_json(exclude_none=True)
        else:
            text = str((args or {}).get("request", ""))
        message = types.Content(role="user", parts=[types.Part(text=text)])

        parent = tool_context.invocation_context
        plugins = list(parent.plugin_manager.plugins) if self.include_plugins else []
        runner = Runner(
            app_name=self.agent.name,
            agent=self.agent,
            plugins=plugins,
            session_service=InMemorySessionService(),
            artifact_service=_ForwardingArtifactService(tool_context) if parent.artifact_service else None,
            memory_service=parent.memory_service,
        )
        try:
            state = {k: v for k, v in tool_context.state.to_dict().items() if not k.startswith("_adk")}
            session = await runner.session_service.create_session(
                app_name=self.agent.name, user_id=parent.user_id, state=state
            )
            last_content: Optional[types.Content] = None
            last_grounding: Optional[types.GroundingMetadata] = None
            async for event in runner.run_async(
                user_id=session.user_id, session_id=session.id, new_message=message, run_config=parent.run_config
            ):
                if event.partial:
                    continue
                if event.actions.state_delta:
                    tool_context.state.update(event.actions.state_delta)
                if event.content:
                    last_content = event.content
                if event.grounding_metadata is not None:
                    last_grounding = event.grounding_metadata
        finally:
            await runner.session_service.close()
        if self.propagate_grounding_metadata and last_grounding is not None:
            # For this invocation only: the caller's next model answer carries the search grounding.
            tool_context.state[GROUNDING_KEY] = last_grounding
        if last_content is None or not last_content.parts:
            return ""
        text = "\n".join(p.text for p in last_content.parts if p.text and not p.thought)
        output_schema = getattr(self.agent, "output_schema", None)
        if output_schema is not None and text.strip():
            return parse_output(output_schema, text)
        return text


def with_propagated_grounding(state: Any, tools: dict[str, Any], response: LlmResponse) -> LlmResponse:
    """`response` with the grounding an agent tool propagated this invocation (google-adk 2.13:
    so a search done by a sub-agent is cited on the caller's answer), when the caller has such a tool."""
    grounding = state.get(GROUNDING_KEY)
    if not grounding or not any(getattr(t, "propagate_grounding_metadata", False) for t in tools.values()):
        return response
    response.grounding_metadata = grounding
    return response


class _ForwardingArtifactService(BaseArtifactService):
    """The sub-agent's artifacts live in the calling session: forward through the tool context."""

    def __init__(self, tool_context: ToolContext):
        self._tool_context = tool_context

    async def save_artifact(self, *, app_name, user_id, filename, artifact, session_id=None, custom_metadata=None):
        return await self._tool_context.save_artifact(filename, artifact, custom_metadata)

    async def load_artifact(self, *, app_name, user_id, filename, session_id=None, version=None):
        return await self._tool_context.load_artifact(filename, version)

    async def list_artifact_keys(self, *, app_name, user_id, session_id=None):
        return await self._tool_context.list_artifacts()

    async def delete_artifact(self, *, app_name, user_id, filename, session_id=None):
        ctx = self._tool_context.invocation_context
        await ctx.artifact_service.delete_artifact(
            app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id, filename=filename
        )

    async def list_versions(self, *, app_name, user_id, filename, session_id=None):
        ctx = self._tool_context.invocation_context
        return await ctx.artifact_service.list_versions(
            app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id, filename=filename
        )

    async def list_artifact_versions(self, *, app_name, user_id, filename, session_id=None):
        ctx = self._tool_context.invocation_context
        return await ctx.artifact_service.list_artifact_versions(
            app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id, filename=filename
        )

    async def get_artifact_version(self, *, app_name, user_id, filename, session_id=None, version=None):
        return await self._tool_context.get_artifact_version(filename, version)
