"""Agent Skills (google-adk's `google.adk.skills`): skill models, loading skill folders, and the
registry interface. The toolset that offers skills to a model is runtime.tools.skill_toolset."""

from __future__ import annotations

from typing import Any

from runtime.skills._utils import SkillPathError
from runtime.skills._utils import _list_skills_in_dir as list_skills_in_dir
from runtime.skills._utils import _list_skills_in_dir_async as list_skills_in_dir_async
from runtime.skills._utils import _list_skills_in_gcs_dir as list_skills_in_gcs_dir
from runtime.skills._utils import _list_skills_in_gcs_dir_async as list_skills_in_gcs_dir_async
from runtime.skills._utils import _load_skill_from_dir as load_skill_from_dir
from runtime.skills._utils import _load_skill_from_dir_async as load_skill_from_dir_async
from runtime.skills._utils import _load_skill_from_gcs_dir as load_skill_from_gcs_dir
from runtime.skills._utils import _load_skill_from_gcs_dir_async as load_skill_from_gcs_dir_async
from runtime.skills._utils import _load_skills_from_dir as load_skills_from_dir
from runtime.skills._utils import _load_skills_from_dir_async as load_skills_from_dir_async
from runtime.skills.models import Frontmatter, Resources, Script, Skill
from runtime.skills.skill_registry import SkillRegistry

__all__ = [
    "DEFAULT_SKILL_SYSTEM_INSTRUCTION",
    "Frontmatter",
    "Resources",
    "Script",
    "Skill",
    "SkillPathError",
    "SkillRegistry",
    "list_skills_in_dir",
    "list_skills_in_dir_async",
    "list_skills_in_gcs_dir",
    "list_skills_in_gcs_dir_async",
    "load_skill_from_dir",
    "load_skill_from_dir_async",
    "load_skill_from_gcs_dir",
    "load_skill_from_gcs_dir_async",
    "load_skills_from_dir",
    "load_skills_from_dir_async",
]


def __getattr__(name: str) -> Any:
    if name == "DEFAULT_SKILL_SYSTEM_INSTRUCTION":  # its old home, as in google-adk
        from runtime.skills.prompt import moved_instruction

        return moved_instruction(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
