"""The tools a SkillToolset offers the model (google-adk 2.13's names and answers): list, search, load and
unload skills, load a skill's files, run its scripts. Each answers an error the model can act on as
``{"error", "error_code"}``; a second missing resource or script in one invocation says to stop."""

from __future__ import annotations

import logging
import mimetypes
from typing import TYPE_CHECKING, Any, Optional, Union

from google.genai import types

from domain.errors import InvalidArgumentError
from runtime.skills import models, prompt
from runtime.tools.base_tool import BaseTool
from runtime.tools import skill_environment
from runtime.tools.skill_lifecycle import SkillLifecycleMode
from runtime.tools.skill_scripts import _SkillScriptCodeExecutor
from runtime.tools.tool_context import ToolContext
from runtime.utils import instructions_utils

if TYPE_CHECKING:
    from runtime.models import LlmRequest
    from runtime.tools.skill_toolset import SkillToolset

logger = logging.getLogger(__name__)

_LIST_SKILLS = "list_skills"
_SEARCH_SKILLS = "search_skills"
_LOAD_SKILL = "load_skill"
_UNLOAD_SKILL = "unload_skill"
_LOAD_SKILL_RESOURCE = "load_skill_resource"
_RUN_SKILL_SCRIPT = "run_skill_script"

_BINARY_FILE_DETECTED_MSG = (
    "Binary file detected. The content has been injected into the conversation history for you to analyze."
)
_RESOURCE_FOLDERS = ("references/", "assets/", "scripts/")


def _error(message: str, code: str) -> dict[str, str]:
    return {"error": message, "error_code": code}


def _missing_arguments(args: dict[str, Any], *names: str) -> Optional[dict[str, str]]:
    missing = [f"Argument '{name}' is required." for name in names if not args.get(name)]
    return _error("\n".join(missing), "INVALID_ARGUMENTS") if missing else None


def _count_not_found(tool_context: ToolContext, what: str) -> int:
    """How many lookups of ``what`` failed in this invocation, this one included. Kept under
    ``temp:``, so it never reaches the log, and per invocation."""
    key = f"temp:_adk_skill_{what}_not_found_count_{tool_context.invocation_id}"
    count = int(tool_context.state.get(key) or 0) + 1
    tool_context.state[key] = count
    return count


class _SkillTool(BaseTool):
    """A tool of a SkillToolset, declared with a JSON schema."""

    TOOL_NAME = ""
    DESCRIPTION = ""
    PARAMETERS: dict[str, Any] = {}
    REQUIRED: tuple[str, ...] = ()

    def __init__(self, toolset: SkillToolset, description: Optional[str] = None):
        super().__init__(name=self.TOOL_NAME, description=description or self.DESCRIPTION)
        self._toolset = toolset

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        schema: dict[str, Any] = {"type": "object", "properties": self.PARAMETERS}
        if self.REQUIRED:
            schema["required"] = list(self.REQUIRED)
        return types.FunctionDeclaration(name=self.name, description=self.description, parameters_json_schema=schema)

    async def _skill(self, skill_name: str, tool_context: ToolContext) -> Union[models.Skill, dict[str, str]]:
        """The skill, or the error response saying why there is none."""
        try:
            skill = await self._toolset._get_or_fetch_skill(skill_name, tool_context.invocation_id)
        except Exception as error:  # noqa: BLE001 - a registry's failure is the model's to report
            return _error(f"Failed to fetch skill '{skill_name}' from registry: {error}", "REGISTRY_ERROR")
        return skill if skill else _error(f"Skill '{skill_name}' not found.", "SKILL_NOT_FOUND")


class ListSkillsTool(_SkillTool):
    TOOL_NAME = _LIST_SKILLS
    DESCRIPTION = "Lists all available skills with their names and descriptions."

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return prompt.format_skills_as_xml(self._toolset._list_skills())


class SearchSkillsTool(_SkillTool):
    TOOL_NAME = _SEARCH_SKILLS
    DESCRIPTION = "Searches for relevant skills in the registry based on a semantic or keyword query."
    PARAMETERS = {"query": {"type": "string", "description": "Semantic or keyword search query."}}
    REQUIRED = ("query",)

    def __init__(self, toolset: SkillToolset):
        if not toolset._registry:
            raise InvalidArgumentError("SearchSkillsTool requires a configured skill registry.")
        super().__init__(toolset, toolset._registry.search_tool_description())

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        refused = _missing_arguments(args, "query")
        if refused:
            return refused
        try:
            found = await self._toolset._registry.search_skills(query=args["query"])
        except Exception as error:  # noqa: BLE001
            return _error(f"Failed to search skills from registry: {error}", "REGISTRY_ERROR")
        results = []
        for frontmatter in found:
            if frontmatter.name in self._toolset._skills:  # the toolset's own skill wins
                logger.warning(
                    "Skill naming conflict: skill '%s' already exists locally. Registry skill is filtered.",
                    frontmatter.name,
                )
                continue
            results.append(frontmatter.model_dump())
        return results


class LoadSkillTool(_SkillTool):
    TOOL_NAME = _LOAD_SKILL
    DESCRIPTION = "Loads the SKILL.md instructions for a given skill."
    PARAMETERS = {"skill_name": {"type": "string", "description": "The name of the skill to load."}}
    REQUIRED = ("skill_name",)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        refused = _missing_arguments(args, "skill_name")
        if refused:
            return refused
        skill_name = args["skill_name"]
        skill = await self._skill(skill_name, tool_context)
        if isinstance(skill, dict):
            return skill
        released = self._toolset._record_activation(
            tool_context.state, tool_context.agent_name, skill_name, tool_context.invocation_id, skill
        )
        instructions = skill.instructions
        if skill.frontmatter.metadata.get("adk_inject_state"):
            instructions = await instructions_utils.inject_session_state(instructions, tool_context)
        result = {"skill_name": skill_name, "instructions": instructions, "frontmatter": skill.frontmatter.model_dump()}
        if released:  # told, rather than its tools quietly vanishing
            result["unloaded_skills"] = released
        if self._toolset._lifecycle.mode(skill_name) is SkillLifecycleMode.EPHEMERAL:
            result["lifecycle_notice"] = (
                "This skill is released at the end of the current turn. Do what it is needed for now; in a "
                "later turn, load it again."
            )
        return result


class UnloadSkillTool(_SkillTool):
    """Releases an active skill: its additional tools are no longer offered, and later requests
    show a notice in place of its instructions (the session's events keep them). Offered when the
    SKILL_LIFECYCLE switch is on, as in ADK."""

    TOOL_NAME = _UNLOAD_SKILL
    DESCRIPTION = "Unloads an active skill once its task is complete, releasing its dynamic tools from the context."
    PARAMETERS = {"skill_name": {"type": "string", "description": "The name of the skill to unload."}}
    REQUIRED = ("skill_name",)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        refused = _missing_arguments(args, "skill_name")
        if refused:
            return refused
        skill_name = args["skill_name"]
        if not self._toolset.unload_skill(tool_context, skill_name):
            return _error(f"Skill '{skill_name}' is not active.", "SKILL_NOT_ACTIVE")
        return {"skill_name": skill_name, "unloaded": True, "active_skills": self._toolset.list_active_skills(tool_context)}


def _resource_content(skill: models.Skill, file_path: str) -> Optional[Union[str, bytes]]:
    """The content of ``references/…``, ``assets/…`` or ``scripts/…`` (a script's source)."""
    folder, _, name = file_path.partition("/")
    resources = skill.resources
    if folder == "references":
        return resources.get_reference(name)
    if folder == "assets":
        return resources.get_asset(name)
    script = resources.get_script(name)
    return None if script is None else script.src


class LoadSkillResourceTool(_SkillTool):
    TOOL_NAME = _LOAD_SKILL_RESOURCE
    DESCRIPTION = "Loads a resource file (from references/, assets/, or scripts/) from within a skill."
    PARAMETERS = {
        "skill_name": {"type": "string", "description": "The name of the skill."},
        "file_path": {
            "type": "string",
            "description": (
                "The relative path to the resource (e.g., 'references/my_doc.md', 'assets/template.txt', or "
                "'scripts/setup.sh')."
            ),
        },
    }
    REQUIRED = ("skill_name", "file_path")

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        refused = _missing_arguments(args, "skill_name", "file_path")
        if refused:
            return refused
        skill_name, file_path = args["skill_name"], args["file_path"]
        skill = await self._skill(skill_name, tool_context)
        if isinstance(skill, dict):
            return skill
        if not file_path.startswith(_RESOURCE_FOLDERS):
            return _error("Path must start with 'references/', 'assets/', or 'scripts/'.", "INVALID_RESOURCE_PATH")
        content = _resource_content(skill, file_path)
        if content is None:
            message = f"Resource '{file_path}' not found in skill '{skill_name}'."
            failures = _count_not_found(tool_context, "resource")
            if failures > 1:
                return _error(
                    f"{message} This is resource lookup failure #{failures} this invocation. Do not retry any "
                    "path — report the error to the user and stop.",
                    "RESOURCE_NOT_FOUND_FATAL",
                )
            return _error(message, "RESOURCE_NOT_FOUND")
        if isinstance(content, bytes):  # sent with the next request, as a part the model can read
            return {"skill_name": skill_name, "file_path": file_path, "status": _BINARY_FILE_DETECTED_MSG}
        return {"skill_name": skill_name, "file_path": file_path, "content": content}

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        """Declares the tool, and after a binary file was loaded adds its bytes to the request."""
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        if not llm_request.contents:
            return
        for part in llm_request.contents[-1].parts or []:
            response = part.function_response
            if not response or response.name != self.name:
                continue
            payload = response.response or {}
            skill_name, file_path = payload.get("skill_name"), payload.get("file_path")
            if payload.get("status") != _BINARY_FILE_DETECTED_MSG or not skill_name or not file_path:
                continue
            try:
                skill = await self._toolset._get_or_fetch_skill(skill_name, tool_context.invocation_id)
            except Exception as error:  # noqa: BLE001 - the request goes on without the file
                logger.warning("Failed to fetch skill '%s' from registry during LLM request processing: %s", skill_name, error)
                continue
            content = _resource_content(skill, file_path) if skill else None
            if not isinstance(content, bytes):
                continue
            mime_type = mimetypes.guess_type(file_path)[0] or "application/octet-stream"
            llm_request.contents.append(
                types.Content(
                    role="user",
                    parts=[
                        types.Part.from_text(text=f"The content of binary file '{file_path}' is:"),
                        types.Part(inline_data=types.Blob(data=content, mime_type=mime_type)),
                    ],
                )
            )


class RunSkillScriptTool(_SkillTool):
    TOOL_NAME = _RUN_SKILL_SCRIPT
    DESCRIPTION = "Executes a script from a skill's scripts/ directory."
    PARAMETERS = {
        "skill_name": {"type": "string", "description": "The name of the skill."},
        "file_path": {"type": "string", "description": "The relative path to the script (e.g., 'scripts/setup.py')."},
        "args": {
            "anyOf": [{"type": "object"}, {"type": "array", "items": {"type": "string"}}],
            "description": (
                "Optional arguments to pass to the script as key-value pairs (long options) or as a list of "
                "strings. If specified as a list, it is treated as the complete list of arguments, and "
                "'short_options' and 'positional_args' must not be provided."
            ),
        },
        "short_options": {
            "type": "object",
            "description": (
                "Optional short options (single hyphen) to pass to the script as key-value pairs. Must not be "
                "provided if 'args' is a list."
            ),
        },
        "positional_args": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Optional positional arguments to pass to the script. Must not be provided if 'args' is a list.",
        },
    }
    REQUIRED = ("skill_name", "file_path")
    ENVIRONMENT_PARAMETERS = {
        "skill_name": PARAMETERS["skill_name"],
        "file_path": PARAMETERS["file_path"],
        "command": {"type": "string", "description": "The command to execute in the environment."},
    }

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        if self._toolset._env is None:
            return super()._get_declaration()
        schema = {"type": "object", "properties": self.ENVIRONMENT_PARAMETERS, "required": ["skill_name", "file_path", "command"]}
        return types.FunctionDeclaration(name=self.name, description=self.description, parameters_json_schema=schema)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        env, command = self._toolset._env, args.get("command")
        refused = _missing_arguments(args, "skill_name", "file_path") or (
            _bad_command(command) if env is not None else _bad_script_arguments(args)
        )
        if refused:
            return refused
        skill_name, file_path = args["skill_name"], args["file_path"]
        skill = await self._skill(skill_name, tool_context)
        if isinstance(skill, dict):
            return skill
        if skill.resources.get_script(file_path.removeprefix("scripts/")) is None:
            message = f"Script '{file_path}' not found in skill '{skill_name}'."
            failures = _count_not_found(tool_context, "script")
            if failures > 1:
                return _error(
                    f"{message} This is script lookup failure #{failures} this invocation. Do not retry any "
                    "script path — report the error to the user and stop.",
                    "SCRIPT_NOT_FOUND_FATAL",
                )
            return _error(message, "SCRIPT_NOT_FOUND")
        if env is not None:
            return await skill_environment.run_in_environment(
                env, self._toolset.skills_folder, skill, file_path, command, self._toolset._script_timeout
            )
        executor = self._toolset._code_executor or getattr(tool_context._invocation_context.agent, "code_executor", None)
        if executor is None:
            return _error(
                "Neither Environment nor CodeExecutor is configured. An environment or code executor is "
                "required to run scripts.",
                "NO_CODE_EXECUTOR",
            )
        runner = _SkillScriptCodeExecutor(executor, self._toolset._script_timeout, self._toolset._save_output_artifacts)
        return await runner.execute_script_async(
            tool_context._invocation_context, skill, file_path, args.get("args"),
            args.get("short_options"), args.get("positional_args"), tool_context,
        )


def _bad_command(command: Any) -> Optional[dict[str, str]]:
    if isinstance(command, str) and command:
        return None
    return _error("Argument 'command' is required and must be a string.", "INVALID_ARGUMENTS")


def _bad_script_arguments(args: dict[str, Any]) -> Optional[dict[str, str]]:
    script_args, short_options, positional = args.get("args"), args.get("short_options"), args.get("positional_args")
    problems = []
    if script_args is not None and not isinstance(script_args, (dict, list)):
        problems.append(f"'args' must be a JSON object (dict) or a list of strings, got {type(script_args).__name__}.")
    if short_options is not None and not isinstance(short_options, dict):
        problems.append(f"'short_options' must be a JSON object (dict), got {type(short_options).__name__}.")
    if positional is not None and not isinstance(positional, list):
        problems.append(f"'positional_args' must be a list of strings, got {type(positional).__name__}.")
    if isinstance(script_args, list) and (short_options or positional):
        problems.append("Cannot specify 'short_options' or 'positional_args' when 'args' is a list.")
    return _error("\n".join(problems), "INVALID_ARGUMENTS") if problems else None
