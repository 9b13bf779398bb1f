"""How long a loaded skill stays active (google-adk 2.13's skill lifecycle), kept in session state.

Per agent, ``_adk_activated_skill_<agent>`` lists the active skills in the order they were loaded
and ``_adk_skill_meta_<agent>`` holds a record per skill that needs one: an EPHEMERAL skill's turn
(``activated_in``), and with ``revalidate_skills`` the digest of what the skill said when loaded.
PERSISTENT skills stay until unloaded; BOUNDED ones also give way, least recently loaded first,
past ``max_active_skills``; EPHEMERAL ones end with the invocation that loaded them. Every change
assigns a new value (never edits in place), so it is recorded in the event's state delta.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
from typing import Any, Optional

from google.genai import types

from domain.errors import InvalidArgumentError
from runtime.skills import models

_DEFAULT_MAX_ACTIVE_SKILLS = 5
_UNLOADED_STATUS = "unloaded"
_UNLOADED_NOTICE = (
    "This skill has been unloaded. Its instructions no longer apply and the tools it contributed are no longer "
    "available. Load it again if you need them."
)


class SkillLifecycleMode(enum.Enum):
    PERSISTENT = "persistent"  # active for the rest of the session unless unloaded (the default)
    BOUNDED = "bounded"  # as PERSISTENT, but counted against max_active_skills
    EPHEMERAL = "ephemeral"  # released when the invocation (turn) that loaded it ends


@dataclasses.dataclass(frozen=True)
class SkillLifecycleConfig:
    """``enabled=False`` leaves every skill PERSISTENT. ``skill_overrides`` names per-skill modes
    (a registry's skills too). ``revalidate_skills`` compares each active skill, every request,
    with what it was when loaded, and re-states the ones that changed."""

    enabled: bool = True
    default_mode: SkillLifecycleMode = SkillLifecycleMode.PERSISTENT
    max_active_skills: int = _DEFAULT_MAX_ACTIVE_SKILLS
    skill_overrides: dict[str, SkillLifecycleMode] = dataclasses.field(default_factory=dict)
    revalidate_skills: bool = False

    def __post_init__(self) -> None:
        if self.max_active_skills < 1:
            raise InvalidArgumentError(f"`max_active_skills` must be at least 1, got {self.max_active_skills}.")


def activated_skills_key(agent_name: str) -> str:
    return f"_adk_activated_skill_{agent_name}"


def lifecycle_key(agent_name: str) -> str:
    # Not under the activated-skill prefix: readers elsewhere take every such key for a name list.
    return f"_adk_skill_meta_{agent_name}"


def stored_skills(state: Any, agent_name: str) -> list[str]:
    return list(state.get(activated_skills_key(agent_name)) or [])


def _records(state: Any, agent_name: str) -> dict[str, dict[str, Any]]:
    records = state.get(lifecycle_key(agent_name))
    if not isinstance(records, dict):
        return {}
    return {name: dict(record) for name, record in records.items() if isinstance(record, dict)}


def skill_content_hash(skill: models.Skill) -> str:
    """A digest of everything the skill can tell the model: instructions, frontmatter and every
    file (each value length-prefixed, so moving text between files changes it)."""
    digest = hashlib.sha256()

    def feed(*values: Any) -> None:
        for value in values:
            data = value.encode("utf-8") if isinstance(value, str) else value
            digest.update(len(data).to_bytes(8, "big"))
            digest.update(data)

    feed(skill.name, skill.instructions, json.dumps(skill.frontmatter.model_dump(mode="json"), sort_keys=True, default=str))
    resources = skill.resources
    for kind, names, get in (
        ("references", resources.list_references(), resources.get_reference),
        ("assets", resources.list_assets(), resources.get_asset),
    ):
        for name in sorted(names):
            content = get(name)
            if content is not None:
                feed(kind, name, content)
    for name in sorted(resources.list_scripts()):
        script = resources.get_script(name)
        if script is not None and script.src is not None:
            feed("scripts", name, script.src)
    return digest.hexdigest()


class SkillLifecycle:
    """The lifecycle rules of one toolset, applied to session state."""

    def __init__(self, config: Optional[SkillLifecycleConfig]):
        config = config or SkillLifecycleConfig()
        # A copy: editing the config later must not change sessions already running.
        self.config = dataclasses.replace(config, skill_overrides=dict(config.skill_overrides))
        modes = {config.default_mode, *config.skill_overrides.values()}
        self._tracks_ephemeral = config.enabled and SkillLifecycleMode.EPHEMERAL in modes
        self.revalidates = config.enabled and config.revalidate_skills

    def mode(self, skill_name: str) -> SkillLifecycleMode:
        if not self.config.enabled:
            return SkillLifecycleMode.PERSISTENT
        return self.config.skill_overrides.get(skill_name, self.config.default_mode)

    def active(self, state: Any, agent_name: str, invocation_id: Optional[str]) -> list[str]:
        """The agent's active skills, oldest first: an EPHEMERAL one loaded in another invocation
        has expired (dropped from state by the next activation)."""
        names = stored_skills(state, agent_name)
        if not names or not self._tracks_ephemeral:
            return names
        records = _records(state, agent_name)
        return [name for name in names if not _expired(records.get(name, {}), invocation_id)]

    def activate(
        self, state: Any, agent_name: str, skill_name: str, invocation_id: Optional[str], skill: Optional[models.Skill] = None
    ) -> list[str]:
        """Marks the skill active; returns the skills this released, oldest first (expired
        ephemeral ones, then those the cap evicted)."""
        stored = stored_skills(state, agent_name)
        active = self.active(state, agent_name, invocation_id)
        expired = [name for name in stored if name not in active and name != skill_name]
        mode = self.mode(skill_name)
        if skill_name not in active:
            active.append(skill_name)
        elif mode is SkillLifecycleMode.PERSISTENT:
            if not expired and not self._record_for(mode, skill):
                return []  # nothing to write
        else:  # reloading is a use: to the end, so the cap spares it
            active.remove(skill_name)
            active.append(skill_name)
        evicted = self._evict_over_cap(active)
        state[activated_skills_key(agent_name)] = active
        self._note(state, agent_name, skill_name, mode, invocation_id, skill)
        self._forget_inactive(state, agent_name, active)
        return expired + evicted

    def deactivate(self, state: Any, agent_name: str, skill_name: str, invocation_id: Optional[str]) -> bool:
        """Drops the skill; whether it was active (an expired ephemeral one was not, but what it
        left in state is cleared all the same)."""
        stored = stored_skills(state, agent_name)
        if skill_name not in stored:
            return False
        was_active = skill_name in self.active(state, agent_name, invocation_id)
        stored.remove(skill_name)
        state[activated_skills_key(agent_name)] = stored
        self._forget_inactive(state, agent_name, stored)
        return was_active

    def loaded_hashes(self, state: Any, agent_name: str, invocation_id: Optional[str]) -> list[tuple[str, str]]:
        """(skill, digest when loaded) of the active skills that were loaded with one."""
        records = _records(state, agent_name)
        pairs = [(name, records.get(name, {}).get("version_hash")) for name in self.active(state, agent_name, invocation_id)]
        return [(name, digest) for name, digest in pairs if digest]

    def _record_for(self, mode: SkillLifecycleMode, skill: Optional[models.Skill]) -> dict[str, Any]:
        record: dict[str, Any] = {}
        if mode is SkillLifecycleMode.EPHEMERAL:
            record["lifecycle"] = mode.value
        if self.revalidates and skill is not None:
            record["version_hash"] = skill_content_hash(skill)
        return record

    def _note(
        self, state: Any, agent_name: str, skill_name: str, mode: SkillLifecycleMode,
        invocation_id: Optional[str], skill: Optional[models.Skill],
    ) -> None:
        record = self._record_for(mode, skill)
        if not record:
            return
        if "lifecycle" in record:
            record["activated_in"] = invocation_id
        records = _records(state, agent_name)
        earlier = records.get(skill_name, {}).get("version_hash")
        if "version_hash" not in record and earlier:  # reactivated without the skill at hand
            record["version_hash"] = earlier
        records[skill_name] = record
        state[lifecycle_key(agent_name)] = records

    def _forget_inactive(self, state: Any, agent_name: str, active: list[str]) -> None:
        """Prunes records of skills no longer active. Only a tool call can: its state delta is
        committed, a request's is not."""
        records = _records(state, agent_name)
        kept = {name: record for name, record in records.items() if name in active}
        if len(kept) != len(records):
            state[lifecycle_key(agent_name)] = kept

    def _evict_over_cap(self, active: list[str]) -> list[str]:
        """Drops the oldest BOUNDED skills past the cap (in place); only they count and go."""
        bounded = [name for name in active if self.mode(name) is SkillLifecycleMode.BOUNDED]
        evicted = bounded[: max(0, len(bounded) - self.config.max_active_skills)]
        active[:] = [name for name in active if name not in evicted]
        return evicted


def _expired(record: dict[str, Any], invocation_id: Optional[str]) -> bool:
    """An EPHEMERAL record from another invocation (one with no invocation stays active)."""
    if record.get("lifecycle") != SkillLifecycleMode.EPHEMERAL.value:
        return False
    loaded_in = record.get("activated_in")
    return bool(loaded_in) and loaded_in != invocation_id


def prune_unloaded_skill_instructions(
    contents: Optional[list[types.Content]], load_skill_tool_name: str, active_skills: set[str]
) -> list[str]:
    """Replaces, in a request's history, the instructions ``load_skill`` returned for skills no
    longer active with a short notice (the response stays: every call needs one). Contents are
    replaced, never edited: they are the session's events. Returns the skills pruned."""
    pruned: list[str] = []
    for index, content in enumerate(contents or []):
        parts = list(content.parts or [])
        changed = False
        for part_index, part in enumerate(parts):
            response = part.function_response
            if response is None or response.name != load_skill_tool_name:
                continue
            body = response.response
            if not isinstance(body, dict) or "instructions" not in body:
                continue
            skill_name = body.get("skill_name")
            if not isinstance(skill_name, str) or skill_name in active_skills:
                continue
            notice = {"skill_name": skill_name, "status": _UNLOADED_STATUS, "detail": _UNLOADED_NOTICE}
            parts[part_index] = part.model_copy(update={"function_response": response.model_copy(update={"response": notice})})
            pruned.append(skill_name)
            changed = True
        if changed:
            contents[index] = content.model_copy(update={"parts": parts})
    return pruned
