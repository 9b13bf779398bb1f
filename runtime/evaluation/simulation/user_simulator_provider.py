"""The simulator of each eval case: its recorded messages for a static case, the configured kind of
simulator for a case with a conversation scenario."""

from __future__ import annotations

from typing import Optional

from ..eval_case import EvalCase
from .llm_backed_user_simulator import LlmBackedUserSimulator, LlmBackedUserSimulatorConfig
from .static_user_simulator import StaticUserSimulator
from .user_simulator import (_SIMULATOR_BY_CONFIG_TYPE, BaseUserSimulatorConfig, UserSimulator, register_user_simulator,
                             simulator_config)

register_user_simulator(LlmBackedUserSimulatorConfig, LlmBackedUserSimulator)
__all__ = ["UserSimulatorProvider", "simulator_config"]


class UserSimulatorProvider:
    def __init__(self, user_simulator_config: Optional[BaseUserSimulatorConfig] = None):
        if user_simulator_config is None:
            user_simulator_config = LlmBackedUserSimulatorConfig()
        elif not isinstance(user_simulator_config, BaseUserSimulatorConfig):
            raise ValueError(f"Expect config of type `{BaseUserSimulatorConfig}`.")
        self._config = user_simulator_config

    def provide(self, eval_case: EvalCase) -> UserSimulator:
        if eval_case.conversation is not None:
            return StaticUserSimulator(static_conversation=eval_case.conversation)
        simulator = _SIMULATOR_BY_CONFIG_TYPE.get(type(self._config))
        if simulator is None:
            raise ValueError(f"No UserSimulator registered for config type `{type(self._config).__name__}`. "
                             f"Register one via `register_user_simulator()`. Currently registered: "
                             f"{sorted(t.__name__ for t in _SIMULATOR_BY_CONFIG_TYPE)}.")
        return simulator(config=self._config, conversation_scenario=eval_case.conversation_scenario)
