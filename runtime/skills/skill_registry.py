"""SkillRegistry: a source of skills beyond a toolset's own (google-adk's `skills.skill_registry`),
searched by the model with `search_skills` and fetched by name when loaded."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Optional

from runtime.skills.models import Frontmatter, Skill


class SkillRegistry(ABC):
    @abstractmethod
    async def get_skill(self, *, name: str) -> Skill:
        """The skill called ``name``; raises when there is none."""

    @abstractmethod
    async def search_skills(self, *, query: str) -> list[Frontmatter]:
        """The frontmatter of the skills that match ``query``."""

    def search_tool_description(self) -> Optional[str]:
        """The `search_skills` tool's description, when the registry wants its own."""
        return None
