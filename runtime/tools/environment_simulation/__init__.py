"""Environment simulation (google-adk 2.13's `tools.environment_simulation`): tools answered by
injected responses/errors or by a model that plays the tool, so an agent can be tried without
the real systems behind its tools."""

from runtime.tools.environment_simulation.environment_simulation_factory import EnvironmentSimulationFactory

__all__ = ["EnvironmentSimulationFactory"]
