"""The simulation as a plugin: it answers configured tools' calls for every agent of the app."""

from __future__ import annotations

from typing import Any, Dict, Optional

from runtime.plugins.base_plugin import BasePlugin
from runtime.tools.base_tool import BaseTool
from runtime.tools.environment_simulation.environment_simulation_engine import EnvironmentSimulationEngine
from runtime.tools.tool_context import ToolContext


class EnvironmentSimulationPlugin(BasePlugin):
    name: str = "EnvironmentSimulation"

    def __init__(self, simulator_engine: EnvironmentSimulationEngine):
        super().__init__(name="EnvironmentSimulation")
        self._simulator_engine = simulator_engine

    async def before_tool_callback(
        self, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> Optional[Dict[str, Any]]:
        return await self._simulator_engine.simulate(tool, tool_args, tool_context)
