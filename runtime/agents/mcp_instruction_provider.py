"""McpInstructionProvider (google-adk 2.13's `agents.mcp_instruction_provider`): an agent's
instruction taken from a prompt of an MCP server, its arguments filled from session state."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from runtime.contexts import ReadonlyContext
from runtime.tools.mcp_tool.mcp_session_manager import MCPSessionManager


class McpInstructionProvider:
    """Use as `LlmAgent(instruction=McpInstructionProvider(params, "prompt_name"))`. Each call
    fetches the prompt; the state keys named like its arguments fill them; the text of its text
    messages, joined, is the instruction. A prompt with no messages raises ValueError."""

    def __init__(self, connection_params: Any, prompt_name: str, errlog: TextIO = sys.stderr):
        self._connection_params = connection_params
        self._errlog = errlog
        self._mcp_session_manager = MCPSessionManager(connection_params=connection_params, errlog=errlog)
        self.prompt_name = prompt_name

    async def __call__(self, context: ReadonlyContext) -> str:
        session = await self._mcp_session_manager.create_session()
        listed = await session.list_prompts()
        prompt = next((p for p in listed.prompts if p.name == self.prompt_name), None)
        arguments: dict[str, Any] = {}
        if prompt is not None and prompt.arguments:
            names = {argument.name for argument in prompt.arguments}
            arguments = {k: v for k, v in (context.state or {}).items() if k in names}
        result = await session.get_prompt(self.prompt_name, arguments=arguments)
        if not result or not result.messages:
            raise ValueError(f"Failed to load MCP prompt '{self.prompt_name}'.")
        return "".join(m.content.text for m in result.messages if m.content.type == "text")

    async def close(self) -> None:
        """Closes the MCP session (and stops a stdio server)."""
        await self._mcp_session_manager.close()
