"""EnvironmentSimulationEngine: answers a configured tool's call instead of the tool."""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any, Dict, Optional

from google.genai import types as genai_types

from runtime.tools.base_tool import BaseTool
from runtime.tools.environment_simulation.environment_simulation_config import (
    EnvironmentSimulationConfig,
    InjectionConfig,
    MockStrategy as MockStrategyEnum,
)
from runtime.tools.environment_simulation.strategies import base as base_mock_strategies
from runtime.tools.environment_simulation.strategies import tool_spec_mock_strategy
from runtime.tools.environment_simulation.tool_connection_analyzer import ToolConnectionAnalyzer
from runtime.tools.environment_simulation.tool_connection_map import ToolConnectionMap

environment_simulation_logger = logging.getLogger("environment_simulation_logger")  # ADK's logger name


def _create_mock_strategy(
    mock_strategy_type: MockStrategyEnum, llm_name: str, llm_config: genai_types.GenerateContentConfig
) -> base_mock_strategies.MockStrategy:
    if mock_strategy_type == MockStrategyEnum.MOCK_STRATEGY_TOOL_SPEC:
        return tool_spec_mock_strategy.ToolSpecMockStrategy(llm_name, llm_config)
    if mock_strategy_type == MockStrategyEnum.MOCK_STRATEGY_TRACING:
        return base_mock_strategies.TracingMockStrategy(llm_name, llm_config)
    raise ValueError(f"Unknown mock strategy type: {mock_strategy_type}")


def _matches(injection: InjectionConfig, args: Dict[str, Any]) -> bool:
    return not injection.match_args or all(item in args.items() for item in injection.match_args.items())


class EnvironmentSimulationEngine:
    """For a configured tool: the first injection that matches the arguments and wins its draw
    answers (after its latency); otherwise the mock strategy does; with neither, None (the real
    tool runs). Tools not configured are never touched. Before the first mocked call, a model
    maps how the agent's tools connect."""

    def __init__(self, config: EnvironmentSimulationConfig):
        self._config = config
        self._tool_sim_configs = {c.tool_name: c for c in config.tool_simulation_configs}
        self._is_analyzed = False
        self._tool_connection_map: Optional[ToolConnectionMap] = None
        self._analyzer = ToolConnectionAnalyzer(
            llm_name=config.simulation_model, llm_config=config.simulation_model_configuration
        )
        self._state_store: Dict[str, Any] = {}
        self._random_generator = random.Random()
        self._seeded_generators = {
            (c.tool_name, i): random.Random(injection.random_seed)
            for c in config.tool_simulation_configs
            for i, injection in enumerate(c.injection_configs)
            if injection.random_seed is not None
        }

    async def _analyze_once(self, tool_context: Any) -> None:
        if self._is_analyzed:
            return
        if any(c.mock_strategy_type != MockStrategyEnum.MOCK_STRATEGY_UNSPECIFIED for c in self._tool_sim_configs.values()):
            from runtime.agents.llm_agent import LlmAgent

            agent = tool_context._invocation_context.agent
            if isinstance(agent, LlmAgent):
                self._tool_connection_map = await self._analyzer.analyze(await agent.canonical_tools(tool_context))
        self._is_analyzed = True

    async def simulate(self, tool: BaseTool, args: Dict[str, Any], tool_context: Any) -> Optional[Dict[str, Any]]:
        config = self._tool_sim_configs.get(tool.name)
        if config is None:
            return None
        await self._analyze_once(tool_context)
        for i, injection in enumerate(config.injection_configs):
            if not _matches(injection, args):
                continue
            draw = self._seeded_generators.get((tool.name, i), self._random_generator).random()
            if draw < injection.injection_probability:
                await asyncio.sleep(injection.injected_latency_seconds)
                if injection.injected_error:
                    return {
                        "error_code": injection.injected_error.injected_http_error_code,
                        "error_message": injection.injected_error.error_message,
                    }
                return injection.injected_response
        if config.mock_strategy_type == MockStrategyEnum.MOCK_STRATEGY_UNSPECIFIED:
            environment_simulation_logger.warning(
                "Tool '%s' did not hit any injection config and has no mock strategy configured. Returning no-op.",
                tool.name,
            )
            return None
        strategy = _create_mock_strategy(
            config.mock_strategy_type, self._config.simulation_model, self._config.simulation_model_configuration
        )
        return await strategy.mock(
            tool, args, tool_context, self._tool_connection_map, self._state_store,
            self._config.environment_data, self._config.tracing,
        )
