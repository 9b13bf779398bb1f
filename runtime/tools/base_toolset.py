"""BaseToolset: a source of tools resolved per request (e.g. the tools of an MCP server)."""

from __future__ import annotations

import abc
import copy
from typing import TYPE_CHECKING, Optional, Protocol, Union, runtime_checkable

from runtime.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from runtime.auth.auth_tool import AuthConfig
    from runtime.contexts import ReadonlyContext
    from runtime.models import LlmRequest
    from runtime.tools.tool_context import ToolContext


@runtime_checkable
class ToolPredicate(Protocol):
    """Decides whether a toolset's tool is offered to the model in this context."""

    def __call__(self, tool: BaseTool, readonly_context: Optional[ReadonlyContext] = None) -> bool: ...


class BaseToolset(abc.ABC):
    """A group of tools decided per request.

    ``tool_filter`` keeps only some tools (a list of names, or a ToolPredicate); subclasses
    apply it in ``get_tools`` with ``_is_tool_selected``. ``tool_name_prefix`` renames every
    tool ``<prefix>_<name>`` so two toolsets with a ``search`` tool can share an agent.
    """

    # Class defaults too, so subclasses that never call __init__ keep working.
    tool_filter: Optional[Union[ToolPredicate, list[str]]] = None
    tool_name_prefix: Optional[str] = None
    # As ADK 2.13: the tools of one invocation are asked for once (a subclass may turn this off).
    _use_invocation_cache: bool = True
    _cached_invocation_id: Optional[str] = None
    _cached_prefixed_tools: Optional[list[BaseTool]] = None

    def __init__(
        self,
        *,
        tool_filter: Optional[Union[ToolPredicate, list[str]]] = None,
        tool_name_prefix: Optional[str] = None,
    ):
        self.tool_filter = tool_filter
        self.tool_name_prefix = tool_name_prefix

    @abc.abstractmethod
    async def get_tools(self, readonly_context: Optional[ReadonlyContext] = None) -> list[BaseTool]: ...

    async def get_tools_with_prefix(self, readonly_context: Optional[ReadonlyContext] = None) -> list[BaseTool]:
        """``get_tools``, renamed with ``tool_name_prefix`` when there is one (what agents call)."""
        invocation_id = readonly_context.invocation_id if readonly_context else None
        if (
            self._use_invocation_cache
            and self._cached_prefixed_tools is not None
            and self._cached_invocation_id == invocation_id
        ):
            return self._cached_prefixed_tools
        tools = await self.get_tools(readonly_context)
        if self.tool_name_prefix:
            tools = [_renamed(tool, f"{self.tool_name_prefix}_{tool.name}") for tool in tools]
        self._cached_invocation_id, self._cached_prefixed_tools = invocation_id, tools
        return tools

    def _is_tool_selected(self, tool: BaseTool, readonly_context: Optional[ReadonlyContext]) -> bool:
        if not self.tool_filter:
            return True
        if isinstance(self.tool_filter, list):
            return tool.name in self.tool_filter
        return bool(self.tool_filter(tool, readonly_context))

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        """Changes the model request for the toolset as a whole (nothing by default)."""

    def get_auth_config(self) -> Optional[AuthConfig]:
        """The credential the toolset needs before its tools can be listed (None: none). An agent
        resolves it before each model call, or asks the client for it and pauses
        (runtime.agents.toolset_auth); the toolset then finds it with
        ``readonly_context.get_credential(config.credential_key)``."""
        return None

    async def close(self) -> None:
        """Release what the toolset holds; called by Runner.close()."""


def _renamed(tool: BaseTool, name: str) -> BaseTool:
    """A shallow copy of ``tool`` that the model knows, and calls, by ``name``."""
    renamed = copy.copy(tool)
    renamed.name = name
    declare = tool._get_declaration

    def declaration():
        original = declare()
        return None if original is None else original.model_copy(update={"name": name})

    renamed._get_declaration = declaration  # type: ignore[method-assign]
    return renamed
