"""load_artifacts: tells the model which artifacts the session has, and puts the ones it asks
for into the next model request only (they are never copied into the session's events)."""

from __future__ import annotations

import inspect
import json
import logging
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional, Union

from google.genai import types

from domain.state import USER_PREFIX
from runtime.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from runtime.models import LlmRequest
    from runtime.tools.tool_context import ToolContext

logger = logging.getLogger("chronicle.tools.load_artifacts")

# What Gemini takes as inline data; anything else is turned into text or a placeholder.
_INLINE_PREFIXES = ("image/", "audio/", "video/")
_INLINE_TYPES = {"application/pdf"}
_NOT_INLINE = {"image/svg", "image/svg+xml", "image/xml"}
_TEXT_TYPES = {"application/json", "application/xml", "application/csv", *_NOT_INLINE}
_TEXT_SUFFIXES = (".csv", ".txt", ".json", ".xml")

ProcessArtifact = Callable[[types.Part, str], Union[Optional[types.Part], Awaitable[Optional[types.Part]]]]


class LoadArtifactsTool(BaseTool):
    def __init__(self, *, process_artifact: Optional[ProcessArtifact] = None):
        super().__init__(
            name="load_artifacts",
            description="Loads artifacts into the session for this request.\n\nNOTE: Call when you need access to "
            "artifacts (for example, uploads saved by the\nweb UI).",
        )
        self._process_artifact = process_artifact

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(name=self.name, description=self.description, parameters_json_schema={
            "type": "object", "properties": {"artifact_names": {"type": "array", "items": {"type": "string"}}}})

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        names = (args or {}).get("artifact_names", [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return {"error": "'artifact_names' must be a list of strings.", "error_code": "INVALID_ARGUMENTS"}
        return {
            "artifact_names": names,
            "status": "artifact contents temporarily inserted and removed. to access these artifacts, "
            "call load_artifacts tool again.",
        }

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        llm_request.append_tools([self])
        available = await tool_context.list_artifacts()
        if not available:
            return
        # google-adk 2.13's words and layout; it joins them to the system instruction after every tool's.
        llm_request.append_dynamic_instructions([
            f"You have a list of artifacts:\n  {json.dumps(available)}\n\n  When the user asks questions about any "
            "of the artifacts, you should call the\n  `load_artifacts` function to load the artifact. Always call "
            "load_artifacts\n  before answering questions related to the artifacts, regardless of whether the\n  "
            "artifacts have been loaded before. Do not depend on prior answers about the\n  artifacts.\n  "
        ])
        last = llm_request.contents[-1] if llm_request.contents else None
        for part in (last.parts or []) if last else []:
            response = part.function_response
            if not response or response.name != self.name:
                continue
            for requested in (response.response or {}).get("artifact_names") or []:
                loaded = await self._load(tool_context, requested, set(available))
                if loaded is not None:
                    llm_request.contents.append(
                        types.Content(role="user", parts=[types.Part(text=f"Artifact {requested} is:"), loaded])
                    )

    async def _load(self, tool_context: ToolContext, requested: Any, available: set[str]) -> Optional[types.Part]:
        # The name comes from the model: only names the service listed for this session are loaded.
        name = _listed_name(requested, available) if isinstance(requested, str) else None
        if name is None:
            logger.warning("Artifact %r is not available in this session; skipped", requested)
            return None
        artifact = await tool_context.load_artifact(name)
        if artifact is None:
            return None
        if self._process_artifact is None:
            return safe_part(artifact, requested)
        try:
            processed = self._process_artifact(artifact, name)
            return await processed if inspect.isawaitable(processed) else processed
        except Exception:  # noqa: BLE001 - a user hook's failure skips that artifact, as in ADK
            logger.exception("process_artifact failed for %r; skipped", name)
            return None


def _listed_name(requested: str, available: set[str]) -> Optional[str]:
    """The listed name the model meant; models often drop or add the ``user:`` prefix."""
    if requested in available:
        return requested
    other = requested.removeprefix(USER_PREFIX) if requested.startswith(USER_PREFIX) else USER_PREFIX + requested
    return other if other in available else None


def safe_part(artifact: types.Part, name: str) -> types.Part:
    """The artifact as Gemini can take it: supported inline data as is, text-like bytes as text,
    other bytes as a short placeholder."""
    blob = artifact.inline_data
    if blob is None:
        return artifact
    mime = (blob.mime_type or "application/octet-stream").split(";", 1)[0].strip().lower()
    if mime not in _NOT_INLINE and (mime.startswith(_INLINE_PREFIXES) or mime in _INLINE_TYPES):
        return artifact
    data = blob.data or b""
    if mime.startswith("text/") or mime in _TEXT_TYPES or name.lower().endswith(_TEXT_SUFFIXES):
        return types.Part(text=data.decode("utf-8", errors="replace"))
    return types.Part(
        text=f"[Binary artifact: {name}, type: {mime}, size: {len(data) / 1024:.1f} KB. "
        "Content cannot be displayed inline.]"
    )


load_artifacts_tool = LoadArtifactsTool()
