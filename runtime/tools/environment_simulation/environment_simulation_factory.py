"""EnvironmentSimulationFactory: the simulation as a tool callback or as a plugin."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Dict, Optional

from runtime.tools.base_tool import BaseTool
from runtime.tools.environment_simulation.environment_simulation_config import EnvironmentSimulationConfig
from runtime.tools.environment_simulation.environment_simulation_engine import EnvironmentSimulationEngine
from runtime.tools.environment_simulation.environment_simulation_plugin import EnvironmentSimulationPlugin


class EnvironmentSimulationFactory:
    @staticmethod
    def create_callback(
        config: EnvironmentSimulationConfig,
    ) -> Callable[[BaseTool, Dict[str, Any], Any], Awaitable[Optional[Dict[str, Any]]]]:
        """A `before_tool_callback` for an agent (an answer it returns replaces the tool's)."""
        engine = EnvironmentSimulationEngine(config)

        async def environment_simulation_callback(tool: BaseTool, args: Dict[str, Any], tool_context: Any):
            return await engine.simulate(tool, args, tool_context)

        return environment_simulation_callback

    @staticmethod
    def create_plugin(config: EnvironmentSimulationConfig) -> EnvironmentSimulationPlugin:
        """A plugin for the Runner or App (it applies to every agent)."""
        return EnvironmentSimulationPlugin(EnvironmentSimulationEngine(config))
