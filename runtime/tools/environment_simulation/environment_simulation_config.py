"""What to simulate: per tool, injections (fixed answers or errors, with a probability, for
matching arguments) tried in order, then a mock strategy (a model playing the tool)."""

from __future__ import annotations

import enum
from typing import Any, Dict, List, Optional

from google.genai import types as genai_types
from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator  # noqa: F401 - ADK exports it


class InjectedError(BaseModel):
    """An error answer: the tool's response is {"error_code": ..., "error_message": ...}."""

    injected_http_error_code: int
    error_message: str


class InjectionConfig(BaseModel):
    """One injection: with `injection_probability`, for calls whose arguments include
    `match_args` (all calls if None), wait `injected_latency_seconds` and answer with
    `injected_error` or `injected_response` (exactly one of them).

    `random_seed` gives this injection its own generator, seeded once when the simulation is
    created, so a run's sequence of hits is reproducible."""

    injection_probability: float = 1.0
    match_args: Optional[Dict[str, Any]] = None
    injected_latency_seconds: float = Field(default=0.0, le=120.0)
    random_seed: Optional[int] = None
    injected_error: Optional[InjectedError] = None
    injected_response: Optional[Dict[str, Any]] = None

    @model_validator(mode="after")
    def _one_answer(self) -> "InjectionConfig":
        if bool(self.injected_error) == bool(self.injected_response):
            raise ValueError(
                "Either injected_error or injected_response must be set, but not both, and not neither."
            )
        return self


class MockStrategy(enum.Enum):
    MOCK_STRATEGY_UNSPECIFIED = 0
    MOCK_STRATEGY_TOOL_SPEC = 1  # a model answers from the tool's declaration (and state so far)
    MOCK_STRATEGY_TRACING = 2  # deprecated in ADK: answers an error


class ToolSimulationConfig(BaseModel):
    """How one tool (by name) is simulated: injections first, then the mock strategy."""

    tool_name: str
    injection_configs: List[InjectionConfig] = Field(default_factory=list)
    mock_strategy_type: MockStrategy = MockStrategy.MOCK_STRATEGY_UNSPECIFIED

    @model_validator(mode="after")
    def _does_something(self) -> "ToolSimulationConfig":
        if not self.injection_configs and self.mock_strategy_type == MockStrategy.MOCK_STRATEGY_UNSPECIFIED:
            raise ValueError(
                "If injection_configs is empty, mock_strategy_type cannot be MOCK_STRATEGY_UNSPECIFIED."
            )
        return self


def _default_model_config() -> genai_types.GenerateContentConfig:
    return genai_types.GenerateContentConfig(
        thinking_config=genai_types.ThinkingConfig(include_thoughts=False, thinking_budget=10240)
    )


class EnvironmentSimulationConfig(BaseModel):
    """The simulated tools (at least one, each name once), the model that plays them, and
    context it is given: `environment_data` (e.g. a small database dump) and `tracing` (a
    prior run's tool calls)."""

    tool_simulation_configs: List[ToolSimulationConfig] = Field(default_factory=list)
    simulation_model: str = Field(default="gemini-2.5-flash")
    simulation_model_configuration: genai_types.GenerateContentConfig = Field(default_factory=_default_model_config)
    tracing: Optional[str] = None
    environment_data: Optional[str] = None

    @field_validator("tool_simulation_configs")
    @classmethod
    def _distinct_tools(cls, configs: List[ToolSimulationConfig]) -> List[ToolSimulationConfig]:
        if not configs:
            raise ValueError("tool_simulation_configs must be provided.")
        seen: set[str] = set()
        for config in configs:
            if config.tool_name in seen:
                raise ValueError(f"Duplicate tool_name found: {config.tool_name}")
            seen.add(config.tool_name)
        return configs
