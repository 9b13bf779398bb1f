"""LoadMcpResourceTool (google-adk 2.13's `tools.load_mcp_resource_tool`): the model is told the
MCP server's resources and loads those it needs; their contents go into that one request only."""

from __future__ import annotations

import base64
import json
import logging
from typing import TYPE_CHECKING, Any

from google.genai import types

from runtime.features import FeatureName, is_feature_enabled
from runtime.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from runtime.models import LlmRequest
    from runtime.tools.mcp_tool.mcp_toolset import McpToolset
    from runtime.tools.tool_context import ToolContext

logger = logging.getLogger("google_adk." + __name__)  # ADK's logger names: users filter on "google_adk"

# google-adk 2.13's words, byte for byte: the model reads them.
DESCRIPTION = "Loads resources from the MCP server.\n\nNOTE: Call when you need access to resources."
LOADED_STATUS = (
    "resource contents temporarily inserted and removed. to access these resources, call load_mcp_resource tool again."
)
RESOURCES_INSTRUCTION = """You have a list of MCP resources:
{names}

When the user asks questions about any of the resources, you should call the
`load_mcp_resource` function to load the resource. Always call load_mcp_resource
before answering questions related to the resources.
"""


class LoadMcpResourceTool(BaseTool):
    """`load_mcp_resource(resource_names)`. Each request lists the toolset's resources in the
    instruction; after the model calls the tool, the next request carries each named resource's
    contents (text, or the decoded bytes of a blob) right after the call's response."""

    def __init__(self, mcp_toolset: McpToolset):
        super().__init__(name="load_mcp_resource", description=DESCRIPTION)
        self._mcp_toolset = mcp_toolset

    def _get_declaration(self) -> types.FunctionDeclaration:
        if is_feature_enabled(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL):
            return types.FunctionDeclaration(
                name=self.name,
                description=self.description,
                parameters_json_schema={
                    "type": "object",
                    "properties": {"resource_names": {"type": "array", "items": {"type": "string"}}},
                },
            )
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters=types.Schema(
                type=types.Type.OBJECT,
                properties={
                    "resource_names": types.Schema(type=types.Type.ARRAY, items=types.Schema(type=types.Type.STRING))
                },
            ),
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return {"resource_names": args.get("resource_names", []), "status": LOADED_STATUS}

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        try:
            names = await self._mcp_toolset.list_resources()
            if names:
                llm_request.append_dynamic_instructions([RESOURCES_INSTRUCTION.format(names=json.dumps(names))])
        except Exception as exc:  # noqa: BLE001 - the agent still runs without the list, as in ADK
            logger.warning("Failed to list MCP resources: %s", exc)
        await self._append_requested_contents(llm_request)

    async def _append_requested_contents(self, llm_request: LlmRequest) -> None:
        """The contents of the resources the model just asked for, each as a user turn."""
        last = llm_request.contents[-1] if llm_request.contents else None
        for part in (last.parts or []) if last is not None else []:
            answer = part.function_response
            if not answer or answer.name != self.name:
                continue
            for name in (answer.response or {}).get("resource_names", []):
                try:
                    contents = await self._mcp_toolset.read_resource(name)
                except Exception as exc:  # noqa: BLE001 - one unreadable resource does not stop the others
                    logger.warning("Failed to read MCP resource '%s': %s", name, exc)
                    continue
                for content in contents:
                    llm_request.contents.append(
                        types.Content(
                            role="user",
                            parts=[types.Part.from_text(text=f"Resource {name} is:"), self._mcp_content_to_part(content, name)],
                        )
                    )

    def _mcp_content_to_part(self, content: Any, resource_name: str) -> types.Part:
        if getattr(content, "text", None) is not None:
            return types.Part.from_text(text=content.text)
        if getattr(content, "blob", None) is not None:
            mime_type = getattr(content, "mimeType", None) or getattr(content, "mime_type", None) or "application/octet-stream"
            try:
                return types.Part.from_bytes(data=base64.b64decode(content.blob), mime_type=mime_type)
            except Exception:  # noqa: BLE001 - the model is told, not the run ended
                return types.Part.from_text(text=f"[Binary content for {resource_name} could not be decoded]")
        return types.Part.from_text(text=f"[Unknown content type for {resource_name}]")
