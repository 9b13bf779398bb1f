"""User simulation for eval cases with a conversation scenario (google-adk 2.13's `evaluation.simulation`).
Names load on first use: the scenario model imports the personas from here without the simulators."""

from domain.lazy_exports import lazy_exports

_HERE = __name__
__all__, __getattr__, __dir__ = lazy_exports(_HERE, {
    f"{_HERE}.llm_backed_user_simulator": ["LlmBackedUserSimulator", "LlmBackedUserSimulatorConfig"],
    f"{_HERE}.static_user_simulator": ["StaticUserSimulator"],
    f"{_HERE}.user_simulator": ["BaseUserSimulatorConfig", "NextUserMessage", "Status", "UserSimulator",
                                "register_user_simulator"],
    f"{_HERE}.user_simulator_personas": ["UserBehavior", "UserPersona", "UserPersonaRegistry"],
    f"{_HERE}.user_simulator_provider": ["UserSimulatorProvider"],
})
