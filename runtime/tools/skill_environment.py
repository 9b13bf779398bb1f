"""Running a skill's script in an environment (``SkillToolset(environment=...)``), as google-adk
2.13 does: the skill's files are written into ``<skills_folder>/<skill>/`` the first time one of
its scripts runs there, and the model gives the command to run. A resource whose path would leave
the skill's folder is refused with PermissionError before anything is written."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path, PurePosixPath
from typing import Any, Optional

from runtime.environment import BaseEnvironment
from runtime.skills import models
from runtime.skills._utils import SkillPathError, _validate_relative_resource_path
from runtime.tools.skill_scripts import script_relative_path

logger = logging.getLogger(__name__)

_MAX_ERROR_CHARS = 200


def _checked(name: str, folder: Path) -> str:
    """``name`` normalized, if it stays inside ``folder`` (symlinks resolved); else PermissionError."""
    try:
        normalized = _validate_relative_resource_path(name)
    except SkillPathError as error:
        raise PermissionError(f"Path traversal detected: {name!r}") from error
    real_folder = os.path.realpath(folder.as_posix())
    target = os.path.realpath((folder / normalized).as_posix())
    if target == real_folder or os.path.commonpath([real_folder, target]) != real_folder:
        raise PermissionError(f"Path traversal detected: {name!r}")
    return normalized


async def write_skill(skill: models.Skill, skill_dir: Path, env: BaseEnvironment) -> None:
    """Writes every file of the skill under ``skill_dir`` in the environment, all paths checked
    first."""
    resources = skill.resources
    files: dict[str, Any] = {}
    for folder, names, get in (
        ("references", resources.list_references(), resources.get_reference),
        ("assets", resources.list_assets(), resources.get_asset),
        ("scripts", resources.list_scripts(), resources.get_script),
    ):
        for name in names:
            path = f"{folder}/{_checked(name, skill_dir / folder)}"
            if path in files:
                raise ValueError(f"Duplicate normalized path detected: {path!r}")
            content = get(name)
            files[path] = content.src if isinstance(content, models.Script) else content
    await asyncio.gather(*(
        env.write_file(Path(PurePosixPath((skill_dir / path).as_posix())), content)
        for path, content in files.items()
        if content is not None
    ))


async def run_in_environment(
    env: BaseEnvironment, skills_folder: Path, skill: models.Skill, file_path: str, command: str, timeout: float
) -> dict[str, Any]:
    """Runs ``command`` in the environment, the skill's files written first if its script is not
    there yet; the tool's response."""
    try:
        skill_dir = skills_folder / skill.name
        script = skill_dir / "scripts" / script_relative_path(file_path)
        try:
            await env.read_file(Path(PurePosixPath(script.as_posix())))
        except FileNotFoundError:
            logger.info("Materializing skill resources for %s in environment", skill.name)
            await write_skill(skill, skill_dir, env)
        result = await env.execute(command=command, timeout=timeout)
        return {"stdout": result.stdout, "stderr": result.stderr, "exit_code": result.exit_code, "timed_out": result.timed_out}
    except Exception as error:  # noqa: BLE001 - reported to the model
        logger.exception("Error executing script '%s' from skill '%s' in environment", file_path, skill.name)
        message = str(error)
        if len(message) > _MAX_ERROR_CHARS:
            message = message[:_MAX_ERROR_CHARS] + "..."
        return {
            "error": f"Failed to execute script '{file_path}' in environment:\n{type(error).__name__}: {message}",
            "error_code": "EXECUTION_ERROR",
        }


def skills_folder_of(env: Optional[BaseEnvironment], configured: Optional[Path]) -> Optional[Path]:
    """Where skills are written in the environment: as configured, else ``<working_dir>/skills``."""
    if configured is not None:
        return configured
    return env.working_dir / "skills" if env is not None else None
