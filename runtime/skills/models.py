"""Agent Skills' data (google-adk's `skills.models`): a skill is its SKILL.md frontmatter (L1, for
discovery), its instructions (L2, the SKILL.md body) and its resources (L3: references, assets,
scripts), each loaded only when the model asks for it."""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

from runtime.features import FeatureName, is_feature_enabled

_KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_KEBAB_OR_SNAKE = re.compile(r"^([a-z0-9]+(-[a-z0-9]+)*|[a-z0-9]+(_[a-z0-9]+)*)$")


class Frontmatter(BaseModel):
    """The SKILL.md header. ``metadata`` holds client settings: ``adk_additional_tools`` (names of
    tools the skill brings once loaded) and ``adk_inject_state`` (fill ``{var}`` in the body from
    session state when the skill is loaded)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    name: str
    description: str
    license: Optional[str] = None
    compatibility: Optional[str] = None
    allowed_tools: Optional[str] = Field(default=None, alias="allowed-tools", serialization_alias="allowed-tools")
    metadata: dict[str, Any] = {}

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        value = unicodedata.normalize("NFKC", value)
        if len(value) > 64:
            raise ValueError("name must be at most 64 characters")
        if is_feature_enabled(FeatureName.SNAKE_CASE_SKILL_NAME):
            if not _KEBAB_OR_SNAKE.match(value):
                raise ValueError(
                    "name must be lowercase kebab-case (a-z, 0-9, hyphens) or snake_case (a-z, 0-9, "
                    "underscores), with no leading, trailing, or consecutive delimiters. Mixing hyphens "
                    "and underscores is not allowed."
                )
        elif not _KEBAB.match(value):
            raise ValueError(
                "name must be lowercase kebab-case (a-z, 0-9, hyphens), with no leading, trailing, or "
                "consecutive delimiters"
            )
        return value

    @field_validator("description")
    @classmethod
    def _check_description(cls, value: str) -> str:
        if not value:
            raise ValueError("description must not be empty")
        if len(value) > 1024:
            raise ValueError(f"description must be at most 1024 characters. Description length: {len(value)}")
        return value

    @field_validator("compatibility")
    @classmethod
    def _check_compatibility(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and len(value) > 500:
            raise ValueError("compatibility must be at most 500 characters")
        return value

    @field_validator("metadata")
    @classmethod
    def _check_metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
        if "adk_additional_tools" in value and not isinstance(value["adk_additional_tools"], list):
            raise ValueError("adk_additional_tools must be a list of strings")
        if "adk_inject_state" in value and not isinstance(value["adk_inject_state"], bool):
            raise ValueError("adk_inject_state must be a bool")
        return value


class Script(BaseModel):
    """A script's source code."""

    src: str

    def __str__(self) -> str:
        return self.src


class Resources(BaseModel):
    """A skill's files by path relative to their folder: text as str, anything else as bytes."""

    references: dict[str, Union[str, bytes]] = {}
    assets: dict[str, Union[str, bytes]] = {}
    scripts: dict[str, Script] = {}

    def get_reference(self, reference_id: str) -> Optional[Union[str, bytes]]:
        return self.references.get(reference_id)

    def get_asset(self, asset_id: str) -> Optional[Union[str, bytes]]:
        return self.assets.get(asset_id)

    def get_script(self, script_id: str) -> Optional[Script]:
        return self.scripts.get(script_id)

    def list_references(self) -> list[str]:
        return list(self.references)

    def list_assets(self) -> list[str]:
        return list(self.assets)

    def list_scripts(self) -> list[str]:
        return list(self.scripts)


class Skill(BaseModel):
    frontmatter: Frontmatter
    instructions: str
    resources: Resources = Resources()

    _uri: Optional[str] = None  # where it was loaded from (RFC 3986), for telemetry

    @property
    def name(self) -> str:
        return self.frontmatter.name

    @property
    def description(self) -> str:
        return self.frontmatter.description
