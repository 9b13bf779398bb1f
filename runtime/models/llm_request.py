"""What an agent sends to a model: the conversation, the config and the tools it may call."""

from __future__ import annotations

import logging
from typing import Any, Iterable, Optional, Protocol

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from .filled import filled


class _DeclaresFunction(Protocol):
    """The slice of a tool that a request needs: its name and its function declaration."""

    name: str

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]: ...


class LlmRequest(BaseModel):
    """One model call: `contents` is the conversation, `config` carries instructions, tools, schema."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    model: Optional[str] = None
    contents: list[types.Content] = Field(default_factory=list)
    config: types.GenerateContentConfig = Field(default_factory=types.GenerateContentConfig)
    # The tool objects behind the declarations, so the runtime can dispatch a function call by name.
    tools_dict: dict[str, Any] = Field(default_factory=dict, exclude=True)
    # Instructions tools add while the request is built (load_artifacts'); joined to the system
    # instruction after every tool has had its say, where google-adk 2.13 puts them.
    # (None until one is added: a default_factory would cost pydantic a signature check per request.)
    _dynamic_instructions: Optional[list[str]] = PrivateAttr(default=None)

    def append_instructions(self, instructions: list[str]) -> None:
        """Adds instructions to the system instruction, after any already there, each joined by a
        blank line as google-adk 2.13 joins them (an empty one too)."""
        if not instructions:
            return
        current = self.config.system_instruction
        if not current:
            self.config.system_instruction = "\n\n".join(instructions)
        elif isinstance(current, str):
            self.config.system_instruction = "\n\n".join([current, *instructions])
        elif isinstance(current, types.Content):
            current.parts = [*(current.parts or []), *(types.Part(text=t) for t in instructions)]
        else:
            # A Part, a File or a list of them: normalise to one Content so we can extend it.
            parts = current if isinstance(current, list) else [current]
            parts = [types.Part(text=p) if isinstance(p, str) else p for p in parts]
            self.config.system_instruction = types.Content(
                role="user", parts=[*parts, *(types.Part(text=t) for t in instructions)]
            )

    def append_dynamic_instructions(self, instructions: list[str]) -> None:
        self._dynamic_instructions = [*(self._dynamic_instructions or []), *instructions]

    def finalize_dynamic_instructions(self) -> None:
        if self._dynamic_instructions:
            self.append_instructions(["\n\n".join(self._dynamic_instructions)])
            self._dynamic_instructions = None

    def append_tools(self, tools: Iterable[_DeclaresFunction]) -> None:
        """Declares the tools to the model (one types.Tool holds every function) and keeps them by name."""
        declarations = []
        for tool in tools:
            declaration = tool._get_declaration()
            if declaration is None:
                continue  # a tool that works without the model calling it (e.g. it edits the request)
            declarations.append(declaration)
            if tool.name in self.tools_dict:
                # Both stay declared, as in google-adk; calls go to the one added last.
                logging.getLogger(__name__).warning(
                    "Duplicate tool name %r: the tool added last handles its calls; the other is shadowed.", tool.name
                )
            self.tools_dict[tool.name] = tool
        if not declarations:
            return
        self.config.tools = list(self.config.tools or [])
        for existing in self.config.tools:
            if isinstance(existing, types.Tool) and existing.function_declarations is not None:
                existing.function_declarations = [*existing.function_declarations, *declarations]
                return
        self.config.tools.append(filled(types.Tool, function_declarations=declarations))

    def set_output_schema(self, schema: Any) -> None:
        """Asks the model for JSON that fits `schema` (a pydantic model class or a types.Schema)."""
        self.config.response_schema = schema
        self.config.response_mime_type = "application/json"
