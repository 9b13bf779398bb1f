"""The skill catalog as the model reads it (google-adk's `skills.prompt`)."""

from __future__ import annotations

import html
import warnings
from typing import Any, Union

from runtime.skills import models


def format_skills_as_xml(skills: list[Union[models.Frontmatter, models.Skill]]) -> str:
    """``<available_skills>`` with each skill's name and description, one element a line."""
    lines = ["<available_skills>"]
    for skill in skills:
        lines += ["<skill>", "<name>", html.escape(skill.name), "</name>"]
        lines += ["<description>", html.escape(skill.description), "</description>", "</skill>"]
    lines.append("</available_skills>")
    return "\n".join(lines)


def moved_instruction(old_home: str) -> Any:
    """DEFAULT_SKILL_SYSTEM_INSTRUCTION asked for at its old home, with google-adk's deprecation warning."""
    from runtime.tools import skill_toolset

    warnings.warn(
        f"Importing DEFAULT_SKILL_SYSTEM_INSTRUCTION from {old_home} is deprecated. "
        "Please import it from runtime.tools.skill_toolset instead.",
        DeprecationWarning,
        stacklevel=3,
    )
    return skill_toolset.DEFAULT_SKILL_SYSTEM_INSTRUCTION


def __getattr__(name: str) -> Any:
    if name == "DEFAULT_SKILL_SYSTEM_INSTRUCTION":  # its old home, as in google-adk
        return moved_instruction(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
