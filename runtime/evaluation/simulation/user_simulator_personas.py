"""Personas a simulated user can take: who they are and how they behave (google-adk 2.13's shapes)."""

from __future__ import annotations

from typing import Sequence

from pydantic import BaseModel, Field

from domain.errors import InvalidArgumentError


class UserBehavior(BaseModel):
    name: str
    description: str
    behavior_instructions: list[str] = Field(default_factory=list)  # what the simulated user does
    violation_rubrics: list[str] = Field(default_factory=list)  # what would break the persona

    def get_behavior_instructions_str(self) -> str:
        return "\n".join(f"  * {i}" for i in self.behavior_instructions)

    def get_violation_rubrics_str(self) -> str:
        return "\n".join(f"  * {v}" for v in self.violation_rubrics)


class UserPersona(BaseModel):
    id: str
    description: str
    behaviors: Sequence[UserBehavior] = Field(default_factory=list)


class UserPersonaRegistry:
    """Personas by id, so a scenario can name one instead of spelling it out."""

    def __init__(self) -> None:
        self._registry: dict[str, UserPersona] = {}

    def get_persona(self, persona_id: str) -> UserPersona:
        if persona_id not in self._registry:
            raise InvalidArgumentError(f"{persona_id} not found in registry.")
        return self._registry[persona_id]

    def register_persona(self, persona_id: str, user_persona: UserPersona) -> None:
        self._registry[persona_id] = user_persona

    def get_registered_personas(self) -> list[UserPersona]:
        return list(self._registry.values())
