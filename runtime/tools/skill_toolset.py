"""SkillToolset (google-adk's `tools.skill_toolset`): offers Agent Skills to a model.

The model discovers skills (``list_skills``, or the catalog in its instruction; ``search_skills``
with a registry), reads one's instructions (``load_skill``), its files (``load_skill_resource``)
and runs its scripts (``run_skill_script``, through a code executor). A loaded skill is recorded in
session state (``_adk_activated_skill_<agent>``), so the tools its frontmatter names in
``adk_additional_tools`` are offered from then on, in later turns too, for as long as the
skill's lifecycle (runtime.tools.skill_lifecycle) keeps it active.

Errors the model can act on come back as ``{"error", "error_code"}`` responses, as in ADK; a
second missing resource or script in one invocation says to stop rather than guess again.
"""

from __future__ import annotations

import asyncio
import collections
import enum
import logging
import warnings
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

from domain.errors import InvalidArgumentError
from runtime.agents.readonly_context import ReadonlyContext
from runtime.code_executors.base_code_executor import BaseCodeExecutor
from runtime.features import FeatureName, is_feature_enabled
from runtime.skills import SkillRegistry, models, prompt
from runtime.tools.base_tool import BaseTool
from runtime.tools.base_toolset import BaseToolset, ToolPredicate
from runtime.tools.function_tool import FunctionTool
from runtime.tools import skill_environment
from runtime.tools.skill_lifecycle import (
    SkillLifecycle,
    SkillLifecycleConfig,
    SkillLifecycleMode,  # noqa: F401 - google-adk's module exposes it
    prune_unloaded_skill_instructions,
    skill_content_hash,
)
from runtime.tools.skill_scripts import DEFAULT_SCRIPT_TIMEOUT, _SkillScriptCodeExecutor  # noqa: F401 - ADK's name here
from runtime.tools.skill_tools import (
    _LIST_SKILLS,
    _LOAD_SKILL,
    _LOAD_SKILL_RESOURCE,
    _RUN_SKILL_SCRIPT,
    _SEARCH_SKILLS,
    _UNLOAD_SKILL,
    ListSkillsTool,
    LoadSkillResourceTool,
    LoadSkillTool,
    RunSkillScriptTool,
    SearchSkillsTool,
    UnloadSkillTool,
)
from runtime.tools.tool_context import ToolContext
from runtime.utils import instructions_utils  # noqa: F401 - google-adk's module exposes it

if TYPE_CHECKING:
    from runtime.environment import BaseEnvironment
    from runtime.models import LlmRequest

logger = logging.getLogger(__name__)

_MAX_CACHED_TURNS = 16

class SkillDiscoveryMode(enum.Enum):
    """How the model learns which skills there are."""

    LAZY = "lazy"  # it calls list_skills (the default)
    EAGER = "eager"  # the catalog is in its system instruction; no list_skills tool


def _build_skill_system_instruction(
    *,
    prefix: Optional[str] = None,
    allowed_tools: Optional[Union[set[str], frozenset[str]]] = None,
    skills_folder: Optional[Path] = None,
    script_execution_enabled: bool = True,
    unload_enabled: bool = False,
) -> str:
    """What the model is told about skills, naming the tools as the toolset's prefix names them.
    With ``allowed_tools`` (the core tools a tool_filter kept), the others are named as not
    available. ``unload_enabled`` (the SKILL_LIFECYCLE switch) documents ``unload_skill``;
    ``skills_folder``, where an environment holds the skills' files."""
    p = f"{prefix}_" if prefix else ""
    load, resource, run = f"`{p}{_LOAD_SKILL}`", f"`{p}{_LOAD_SKILL_RESOURCE}`", f"`{p}{_RUN_SKILL_SCRIPT}`"
    if script_execution_enabled:
        scripts = "- **scripts/** (Optional): Executable scripts that can be run via bash.\n\n"
    else:
        scripts = (
            f"- **scripts/** (Optional): Scripts bundled with the skill. You cannot run them; use {resource} "
            "to read one and follow it yourself.\n\n"
        )
    steps = [
        f"If a skill seems relevant to the current user query, you MUST use the {load} tool with "
        '`skill_name="<SKILL_NAME>"` to read its full instructions before proceeding.',
        "Once you have read the instructions, follow them exactly as documented before replying to the user. "
        "For example, If the instruction lists multiple steps, please make sure you complete all of them in order.",
        f"The {resource} tool is for viewing files within a skill's directory (e.g., `references/*`, "
        "`assets/*`, `scripts/*`). It is ONLY for skill-bundled files — do NOT use it to access documents or "
        "files provided by the user at runtime. Do NOT use other tools to access skill files.",
    ]
    if script_execution_enabled:
        steps.append(
            f"Use {run} to run scripts from a skill's `scripts/` directory. Use {resource} to view script "
            "content first if needed."
        )
    steps.append(f"If {resource} returns any error, do not retry any path. Report the error to the user and stop.")
    if script_execution_enabled:
        steps.append(
            f"If {run} returns an error (for example `SCRIPT_NOT_FOUND`), do not retry the same script or guess "
            "a different script path. Report the error to the user and stop."
        )
    steps.append(
        f"Loading a skill only retrieves its instructions; it does NOT complete your turn. After a {load} call "
        "returns, continue in the SAME turn: call whatever tools the skill's steps require (search, data "
        "retrieval, render), then write your reply. Never end your turn with an empty response right after "
        "loading a skill."
    )
    if unload_enabled:
        steps.append(
            "Once a skill's task is finished and you no longer need its instructions or its tools, call "
            f'`{p}{_UNLOAD_SKILL}` with `skill_name="<SKILL_NAME>"` to release it. Only unload a skill you are done '
            f"with: its tools stop being available, and you would have to {load} it again to use them. Unloading "
            "is optional; never unload a skill just because you loaded it."
        )
    if script_execution_enabled and skills_folder is not None:
        folder = skills_folder.as_posix()
        steps.append(
            f"NOTE ON ENVIRONMENT EXECUTION: When using {run} with the `command` parameter, all skill resources "
            "(including scripts and assets) are materialized in the execution environment under "
            f"`{folder}/<skill_name>/`. Always specify file and script paths relative to or starting with "
            f"`{folder}/<skill_name>/` (e.g., `{folder}/<skill_name>/scripts/<script_name>`)."
        )
    instruction = (
        "You can use specialized 'skills' to help you with complex tasks. You MUST use the skill tools to "
        "interact with these skills.\n\n"
        "Skills are folders of instructions and resources that extend your capabilities for specialized "
        "tasks. Each skill folder contains:\n"
        "- **SKILL.md** (required): The main instruction file with skill metadata and detailed markdown "
        "instructions.\n"
        "- **references/** (Optional): Additional documentation or examples for skill usage.\n"
        "- **assets/** (Optional): Templates, scripts or other resources used by the skill.\n"
        + scripts
        + "This is very important:\n\n"
        + "".join(f"{number}. {step}\n" for number, step in enumerate(steps, start=1))
    )
    if allowed_tools is not None:
        core = (_RUN_SKILL_SCRIPT, _LOAD_SKILL_RESOURCE, _LOAD_SKILL, _LIST_SKILLS) + ((_UNLOAD_SKILL,) if unload_enabled else ())
        banned = [f"`{p}{name}`" for name in core if name not in allowed_tools]
        if banned:
            instruction += (
                f"\n\nNote: The following tools are NOT available: {', '.join(banned)}. Do NOT call them. After "
                "loading a skill (if available), apply its instructions in context and write your final reply "
                "as normal model text. Never wrap the user-facing answer inside a tool call.\n"
            )
    return instruction


class SkillToolset(BaseToolset):
    """Offers ``skills`` (and a ``registry``'s) to a model. ``code_executor`` runs scripts (else
    the agent's); ``additional_tools`` are the tools (functions, BaseTool, BaseToolset) a skill may
    name in ``adk_additional_tools``, offered once it is loaded."""

    def __init__(
        self,
        skills: Optional[list[models.Skill]] = None,
        *,
        registry: Optional[SkillRegistry] = None,
        code_executor: Optional[BaseCodeExecutor] = None,
        environment: Optional[BaseEnvironment] = None,
        skills_folder: Optional[Union[Path, str]] = None,
        script_timeout: int = DEFAULT_SCRIPT_TIMEOUT,
        save_output_artifacts: bool = False,
        additional_tools: Optional[Sequence[Any]] = None,
        tool_name_prefix: Optional[str] = None,
        tool_filter: Optional[Union[ToolPredicate, list[str]]] = None,
        discovery_mode: SkillDiscoveryMode = SkillDiscoveryMode.LAZY,
        lifecycle_config: Optional[SkillLifecycleConfig] = None,
    ):
        super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
        _check_environment(code_executor, environment, skills_folder, save_output_artifacts)
        self._env = environment
        self._skills_folder = Path(skills_folder) if skills_folder is not None else None
        self._skills: dict[str, models.Skill] = {}
        for skill in skills or []:
            if skill.name in self._skills:
                raise InvalidArgumentError(f"Duplicate skill name '{skill.name}'.")
            self._skills[skill.name] = skill
        self._registry = registry
        self._code_executor = code_executor
        self._script_timeout = script_timeout
        self._save_output_artifacts = save_output_artifacts
        self._discovery_mode = discovery_mode
        self._lifecycle = SkillLifecycle(lifecycle_config)
        self._lifecycle_enabled = is_feature_enabled(FeatureName.SKILL_LIFECYCLE)
        self._materialized: dict[str, str] = {}  # the digest last written to the environment, per skill
        self._use_invocation_cache = False  # the tools change when a skill is loaded mid-turn
        # Registry skills fetched per invocation (a future while the fetch runs), the oldest dropped.
        self._fetched_skill_cache: collections.OrderedDict[str, dict[str, Any]] = collections.OrderedDict()
        self._max_cache_turns = _MAX_CACHED_TURNS
        self._provided_tools_by_name: dict[str, BaseTool] = {}
        self._provided_toolsets: list[BaseToolset] = []
        for item in additional_tools or []:
            self._add_provided_tool(item)
        self._warned_on_filtered_list_skills = False
        self._tools: list[BaseTool] = [ListSkillsTool(self)] if discovery_mode is SkillDiscoveryMode.LAZY else []
        self._tools += [LoadSkillTool(self), LoadSkillResourceTool(self), RunSkillScriptTool(self)]
        if registry:
            self._tools.append(SearchSkillsTool(self))
        if self._lifecycle_enabled:
            self._tools.append(UnloadSkillTool(self))

    def _add_provided_tool(self, item: Any) -> None:
        if isinstance(item, BaseToolset):
            self._provided_toolsets.append(item)
        elif isinstance(item, BaseTool):
            self._provided_tools_by_name[item.name] = item
        elif callable(item) and not isinstance(item, type):
            tool = FunctionTool(item)
            self._provided_tools_by_name[tool.name] = tool
        else:
            raise InvalidArgumentError(
                f"additional_tools takes functions, BaseTool and BaseToolset instances, not {type(item).__name__}."
            )

    @property
    def skills(self) -> list[models.Skill]:
        return self._list_skills()

    @property
    def skills_folder(self) -> Optional[Path]:
        """Where skills' files are written in the environment (None without one)."""
        return skill_environment.skills_folder_of(self._env, self._skills_folder)

    def _get_skill(self, skill_name: str) -> Optional[models.Skill]:
        return self._skills.get(skill_name)

    def _list_skills(self) -> list[models.Skill]:
        return list(self._skills.values())

    async def _get_or_fetch_skill(self, skill_name: str, invocation_id: Optional[str] = None) -> Optional[models.Skill]:
        """The toolset's own skill, else the registry's, fetched once per invocation even when
        several tools ask at the same time."""
        skill = self._get_skill(skill_name)
        if skill or not self._registry:
            return skill
        if not invocation_id:
            return await self._registry.get_skill(name=skill_name)
        if invocation_id not in self._fetched_skill_cache:
            if len(self._fetched_skill_cache) >= self._max_cache_turns:
                self._fetched_skill_cache.popitem(last=False)
            self._fetched_skill_cache[invocation_id] = {}
        turn = self._fetched_skill_cache[invocation_id]
        if skill_name in turn:
            cached = turn[skill_name]
            return await cached if isinstance(cached, asyncio.Future) else cached
        pending = asyncio.get_running_loop().create_future()
        turn[skill_name] = pending
        try:
            skill = await self._registry.get_skill(name=skill_name)
        except Exception as error:
            pending.set_exception(error)
            pending.exception()  # retrieved: no "exception never retrieved" warning when nobody waits
            turn.pop(skill_name, None)
            raise
        pending.set_result(skill)
        turn[skill_name] = skill
        return skill

    def _record_activation(
        self, state: Any, agent_name: str, skill_name: str, invocation_id: Optional[str] = None,
        skill: Optional[models.Skill] = None,
    ) -> list[str]:
        """Marks the skill active for the agent; returns the skills that released."""
        return self._lifecycle.activate(state, agent_name, skill_name, invocation_id, skill)

    def _active_skills(self, state: Any, agent_name: str, invocation_id: Optional[str]) -> list[str]:
        return self._lifecycle.active(state, agent_name, invocation_id)

    def list_active_skills(self, ctx: ReadonlyContext) -> list[str]:
        """The skills active for ``ctx``'s agent, least recently loaded first."""
        return self._active_skills(ctx.state, ctx.agent_name, ctx.invocation_id)

    async def load_skill(self, ctx: ToolContext, skill_name: str) -> bool:
        """Activates a skill for ``ctx``'s agent without the model (its additional tools are
        offered; its instructions are not put in the conversation). False if it already was
        active; InvalidArgumentError if there is no such skill."""
        if skill_name in self._active_skills(ctx.state, ctx.agent_name, ctx.invocation_id):
            self._record_activation(ctx.state, ctx.agent_name, skill_name, ctx.invocation_id)
            return False
        skill = await self._get_or_fetch_skill(skill_name, ctx.invocation_id)
        if skill is None:
            raise InvalidArgumentError(f"Skill '{skill_name}' not found.")
        was_active = skill_name in self._active_skills(ctx.state, ctx.agent_name, ctx.invocation_id)  # fetch awaited
        self._record_activation(ctx.state, ctx.agent_name, skill_name, ctx.invocation_id, skill)
        return not was_active

    def unload_skill(self, ctx: ToolContext, skill_name: str) -> bool:
        """Deactivates a skill for ``ctx``'s agent; whether it was active."""
        return self._lifecycle.deactivate(ctx.state, ctx.agent_name, skill_name, ctx.invocation_id)

    def _has_script_execution(self, context: Optional[ReadonlyContext]) -> bool:
        if self._code_executor is not None or self._env is not None:
            return True
        agent = getattr(getattr(context, "_invocation_context", None), "agent", None)
        return agent is None or getattr(agent, "code_executor", None) is not None

    def _offers_script_tool(self, context: Optional[ReadonlyContext]) -> bool:
        """Whether run_skill_script can succeed (anything unknown counts as yes)."""
        if not self._has_script_execution(context):
            return False
        if getattr(context, "_invocation_context", None) is None or self._registry is not None:
            return True
        return any(skill.resources.list_scripts() for skill in self._list_skills())

    async def get_tools(self, readonly_context: Optional[ReadonlyContext] = None) -> list[BaseTool]:
        tools = self._tools + await self._resolve_additional_tools_from_state(readonly_context)
        if not self._offers_script_tool(readonly_context):
            tools = [tool for tool in tools if not isinstance(tool, RunSkillScriptTool)]
        return [tool for tool in tools if self._is_tool_selected(tool, readonly_context)]

    async def _resolve_additional_tools_from_state(self, readonly_context: Optional[ReadonlyContext]) -> list[BaseTool]:
        """The tools named in the loaded skills' ``adk_additional_tools``, each once, in the order
        the skills were loaded (so a new skill's tools come last and the request's prefix stays
        the same for the model's cache). A name no tool has is skipped."""
        if not readonly_context:
            return []
        names: dict[str, None] = {}
        active = self._active_skills(readonly_context.state, readonly_context.agent_name, readonly_context.invocation_id)
        for skill_name in active:
            skill = await self._get_or_fetch_skill(skill_name, readonly_context.invocation_id)
            if skill:
                names.update(dict.fromkeys(skill.frontmatter.metadata.get("adk_additional_tools") or []))
        if not names:
            return []
        candidates = dict(self._provided_tools_by_name)
        for toolset in self._provided_toolsets:
            try:
                tools = await toolset.get_tools_with_prefix(readonly_context)
            except Exception as error:  # noqa: BLE001 - one toolset down must not take the others
                logger.warning("Skipping toolset %s while resolving skill additional tools: %s", type(toolset).__name__, error)
                continue
            candidates.update((tool.name, tool) for tool in tools)
        taken = {tool.name for tool in self._tools}
        resolved = []
        for name in names:
            tool = candidates.get(name)
            if tool is None:
                continue
            if tool.name in taken:
                logger.error("Tool name collision: tool '%s' already exists.", tool.name)
                continue
            resolved.append(tool)
            taken.add(tool.name)
        return resolved

    def clone_with_updated_skills(self, skills: list[models.Skill]) -> SkillToolset:
        """The same toolset with other skills."""
        return SkillToolset(
            skills=skills,
            registry=self._registry,
            code_executor=self._code_executor,
            environment=self._env,
            skills_folder=self._skills_folder,
            script_timeout=self._script_timeout,
            save_output_artifacts=self._save_output_artifacts,
            additional_tools=[*self._provided_tools_by_name.values(), *self._provided_toolsets],
            tool_name_prefix=self.tool_name_prefix,
            tool_filter=self.tool_filter,
            discovery_mode=self._discovery_mode,
            lifecycle_config=self._lifecycle.config,
        )

    def _inject_catalog(self, selected: set[str]) -> bool:
        """Whether the catalog goes in the system instruction: in EAGER mode, or (deprecated, as in
        ADK) when a tool_filter hides list_skills."""
        if self._discovery_mode is SkillDiscoveryMode.EAGER:
            return True
        if _LIST_SKILLS in selected:
            return False
        if not self._warned_on_filtered_list_skills:
            self._warned_on_filtered_list_skills = True
            warnings.warn(
                "Filtering out `list_skills` to inject the skill catalog into the system instruction is "
                "deprecated. Pass `discovery_mode=SkillDiscoveryMode.EAGER` instead.",
                FutureWarning,
                stacklevel=2,
            )
        return True

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        """Tells the model about skills (and the catalog, or the registry's search tool)."""
        if self._env is not None and not self._env.is_initialized:
            await self._env.initialize()
        selected = {tool.name for tool in self._tools if self._is_tool_selected(tool, tool_context)}
        instructions = [
            _build_skill_system_instruction(
                prefix=self.tool_name_prefix,
                allowed_tools=selected,
                skills_folder=self.skills_folder,
                script_execution_enabled=self._offers_script_tool(tool_context),
                unload_enabled=self._lifecycle_enabled,
            )
        ]
        if self._inject_catalog(selected):
            instructions.append(prompt.format_skills_as_xml(self._list_skills()))
        if self._registry and _SEARCH_SKILLS in selected:
            p = self._prefix
            instructions.append(
                "\nIf the locally available skills are not sufficient to complete your task, you can use the "
                f"`{p}{_SEARCH_SKILLS}` tool to discover additional skills from the registry."
            )
        if self._lifecycle.revalidates:
            instructions += await self._restate_changed_skills(tool_context)
        llm_request.append_instructions(instructions)
        if self._lifecycle_enabled:
            active = set(self.list_active_skills(tool_context))
            prune_unloaded_skill_instructions(llm_request.contents, f"{self._prefix}{_LOAD_SKILL}", active)

    @property
    def _prefix(self) -> str:
        return f"{self.tool_name_prefix}_" if self.tool_name_prefix else ""

    async def _restate_changed_skills(self, tool_context: ToolContext) -> list[str]:
        """The instructions of each active skill whose definition changed since it was loaded
        (the same text each request, until the model loads it again)."""
        loaded = self._lifecycle.loaded_hashes(tool_context.state, tool_context.agent_name, tool_context.invocation_id)
        fetched = await asyncio.gather(
            *(self._get_or_fetch_skill(name, tool_context.invocation_id) for name, _ in loaded), return_exceptions=True
        )
        restated = []
        for (skill_name, digest), skill in zip(loaded, fetched):
            if isinstance(skill, Exception):  # a registry that is down is no reason to fail the turn
                logger.warning("Could not revalidate skill '%s': %s", skill_name, skill)
                continue
            if isinstance(skill, BaseException):
                raise skill
            if skill is None or skill_content_hash(skill) == digest:
                continue
            await self._rewrite_in_environment(skill)
            restated.append(
                f"\nThe skill `{skill_name}` has changed since it was loaded. These instructions replace the ones "
                f"the earlier `{self._prefix}{_LOAD_SKILL}` response gave you:\n\n{skill.instructions}"
            )
        return restated

    async def _rewrite_in_environment(self, skill: models.Skill) -> None:
        """Rewrites a changed skill's files in the environment (once per version), so the model
        does not run the old copy of a script it was just re-briefed on. A failure only logs."""
        if self._env is None:
            return
        digest = skill_content_hash(skill)
        if self._materialized.get(skill.name) == digest:
            return
        try:
            if not self._env.is_initialized:
                await self._env.initialize()
            await skill_environment.write_skill(skill, self.skills_folder / skill.name, self._env)
            self._materialized[skill.name] = digest
        except Exception as error:  # noqa: BLE001 - the skill is re-stated all the same
            logger.warning("Could not refresh skill '%s' in the environment: %s", skill.name, error)

    async def close(self) -> None:
        if self._env is not None and self._env.is_initialized:
            await self._env.close()
        for turn in self._fetched_skill_cache.values():
            for cached in turn.values():
                if isinstance(cached, asyncio.Future) and not cached.done():
                    cached.cancel()
        self._fetched_skill_cache.clear()
        await super().close()


def _check_environment(code_executor: Any, environment: Any, skills_folder: Any, save_output_artifacts: bool) -> None:
    """Scripts run through a code executor or in an environment, never both; the environment's
    skills folder is absolute; generated files are saved from a code executor only."""
    if code_executor is not None and environment is not None:
        raise InvalidArgumentError("Cannot have both code_executor and environment")
    if environment is not None and save_output_artifacts:
        raise InvalidArgumentError("`save_output_artifacts` is only supported with code_executor, not environment.")
    if skills_folder is not None:
        if environment is None:
            raise InvalidArgumentError("Cannot specify skills_folder without an environment")
        if not (PurePosixPath(skills_folder).is_absolute() or PureWindowsPath(skills_folder).is_absolute()):
            raise InvalidArgumentError(f"`skills_folder` must be an absolute path: '{skills_folder}'")


DEFAULT_SKILL_SYSTEM_INSTRUCTION = _build_skill_system_instruction()
