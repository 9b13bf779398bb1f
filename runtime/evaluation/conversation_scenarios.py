"""A scenario for a simulated user: the first message, and the plan the simulator follows afterwards."""

from __future__ import annotations

from typing import Optional

from pydantic import Field, field_validator

from .common import EvalBaseModel
from .simulation.pre_built_personas import get_default_persona_registry
from .simulation.user_simulator_personas import UserPersona


class ConversationScenario(EvalBaseModel):
    starting_prompt: str  # the fixed first user message
    conversation_plan: str  # what the simulated user wants, and when it is done
    user_persona: Optional[UserPersona] = None  # or a registered persona's id

    @field_validator("user_persona", mode="before")
    @classmethod
    def _persona_by_id(cls, value):
        return get_default_persona_registry().get_persona(value) if isinstance(value, str) else value


class ConversationScenarios(EvalBaseModel):
    scenarios: list[ConversationScenario] = Field(default_factory=list)
