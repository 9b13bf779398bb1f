"""A mock strategy answers a simulated tool call."""

from __future__ import annotations

from typing import Any, Dict, Optional

from google.genai import types as genai_types

from runtime.tools.base_tool import BaseTool
from runtime.tools.environment_simulation.tool_connection_map import ToolConnectionMap


class MockStrategy:
    async def mock(
        self,
        tool: BaseTool,
        args: Dict[str, Any],
        tool_context: Any,
        tool_connection_map: Optional[ToolConnectionMap],
        state_store: Dict[str, Any],
        environment_data: Optional[str] = None,
        tracing: Optional[str] = None,
    ) -> Dict[str, Any]:
        """The simulated response to `tool(**args)`; `state_store` is shared across the run's calls."""
        raise NotImplementedError()


class TracingMockStrategy(MockStrategy):
    """Deprecated in google-adk 2.13 (use MOCK_STRATEGY_TOOL_SPEC with `tracing`): answers an error."""

    def __init__(self, llm_name: str = "", llm_config: Optional[genai_types.GenerateContentConfig] = None):
        self._llm_name = llm_name
        self._llm_config = llm_config

    async def mock(self, tool, args, tool_context, tool_connection_map, state_store, environment_data=None, tracing=None):
        return {"status": "error", "error_message": "Not implemented"}
