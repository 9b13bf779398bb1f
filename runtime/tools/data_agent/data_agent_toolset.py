"""DataAgentToolset: the data agent tools (read-only unless modification is enabled)."""

from __future__ import annotations

from typing import Optional, Union

from runtime.contexts import ReadonlyContext
from runtime.tools.base_tool import BaseTool
from runtime.tools.base_toolset import BaseToolset, ToolPredicate
from runtime.tools.data_agent import data_agent_tool
from runtime.tools.data_agent.config import DataAgentToolConfig
from runtime.tools.data_agent.credentials import DataAgentCredentialsConfig
from runtime.tools.google_tool import GoogleTool

_READ = (data_agent_tool.list_accessible_data_agents, data_agent_tool.get_data_agent_info, data_agent_tool.ask_data_agent)
_MODIFY = (data_agent_tool.create_data_agent, data_agent_tool.delete_data_agent, data_agent_tool.update_data_agent)


class DataAgentToolset(BaseToolset):
    def __init__(
        self,
        *,
        tool_filter: Optional[Union[ToolPredicate, list[str]]] = None,
        credentials_config: Optional[DataAgentCredentialsConfig] = None,
        data_agent_tool_config: Optional[DataAgentToolConfig] = None,
    ):
        super().__init__(tool_filter=tool_filter)
        self._credentials_config = credentials_config
        self._tool_settings = data_agent_tool_config or DataAgentToolConfig()

    def _is_tool_selected(self, tool: BaseTool, readonly_context: Optional[ReadonlyContext]) -> bool:
        # Unlike the base rule, an empty list selects nothing (as in ADK).
        if self.tool_filter is None:
            return True
        if isinstance(self.tool_filter, list):
            return tool.name in self.tool_filter
        return bool(self.tool_filter(tool, readonly_context))

    async def get_tools(self, readonly_context: Optional[ReadonlyContext] = None) -> list[BaseTool]:
        funcs = _READ + (_MODIFY if self._tool_settings.enable_data_agent_modification else ())
        tools = [
            GoogleTool(func, credentials_config=self._credentials_config, tool_settings=self._tool_settings)
            for func in funcs
        ]
        return [t for t in tools if self._is_tool_selected(t, readonly_context)]
