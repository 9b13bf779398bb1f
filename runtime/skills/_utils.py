"""Loading skills from folders (google-adk's `skills._utils`, whose names `runtime.skills` exports).

A skill folder holds SKILL.md (YAML frontmatter between ``---`` lines, then the instructions) and
optional ``references/``, ``assets/`` and ``scripts/`` folders, read whole: text files as str,
others as bytes. The folder's name must be the skill's name. A resource path that could leave its
folder (absolute, ``..``, a drive, a symlink pointing out) is refused with SkillPathError.
"""

from __future__ import annotations

import asyncio
import logging
import ntpath
import pathlib
from typing import Any, Callable, Optional, Union

import yaml
from pydantic import ValidationError

from domain.errors import InvalidArgumentError
from runtime.skills import models

logger = logging.getLogger(__name__)

_SKILL_FILES = ("SKILL.md", "skill.md")
_FRONTMATTER_KEYS = frozenset({"name", "description", "license", "allowed-tools", "allowed_tools", "metadata", "compatibility"})


class SkillPathError(InvalidArgumentError):
    """A skill resource's path would leave the skill's folder."""


def _validate_relative_resource_path(path: str) -> str:
    """``path`` as a normalized POSIX path inside its folder; SkillPathError if it could leave it."""
    posix = pathlib.PurePosixPath(path.replace("\\", "/"))
    normalized = posix.as_posix()
    if (
        normalized in ("", ".")
        or posix.is_absolute()
        or ".." in posix.parts
        or ntpath.isabs(path)
        or ntpath.splitdrive(path)[0]
    ):
        raise SkillPathError(f"Unsafe path in skill resource: {path!r}")
    return normalized


def _load_dir(directory: pathlib.Path) -> dict[str, Union[str, bytes]]:
    """Every file under ``directory`` by POSIX relative path (none when it does not exist)."""
    files: dict[str, Union[str, bytes]] = {}
    if not directory.is_dir():
        return files
    root = directory.resolve()
    for path in sorted(directory.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        relative = path.relative_to(directory).as_posix()
        if not path.resolve().is_relative_to(root):
            raise SkillPathError(f"Unsafe path in skill resource: {relative!r} points outside {directory}")
        try:
            files[relative] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            files[relative] = path.read_bytes()
    return files


def _build_scripts(raw: dict[str, Union[str, bytes]]) -> dict[str, models.Script]:
    """Scripts are source code: a file that is not UTF-8 text is skipped, with a warning."""
    scripts = {}
    for name, src in raw.items():
        if isinstance(src, bytes):
            try:
                src = src.decode("utf-8")
            except UnicodeDecodeError:
                logger.warning("Skipping non-UTF-8 skill script '%s'.", name)
                continue
        scripts[name] = models.Script(src=src)
    return scripts


def _parse_skill_md_content(content: str) -> tuple[dict, str]:
    """(the frontmatter mapping, the instructions) of a SKILL.md text."""
    if not content.startswith("---"):
        raise ValueError("SKILL.md must start with YAML frontmatter (---)")
    pieces = content.split("---", 2)
    if len(pieces) < 3:
        raise ValueError("SKILL.md frontmatter not properly closed with ---")
    try:
        parsed = yaml.safe_load(pieces[1])
    except yaml.YAMLError as error:
        raise ValueError(f"Invalid YAML in frontmatter: {error}") from error
    if not isinstance(parsed, dict):
        raise ValueError("SKILL.md frontmatter must be a YAML mapping")
    return parsed, pieces[2].strip()


def _skill_md(skill_dir: pathlib.Path) -> pathlib.Path:
    if not skill_dir.is_dir():
        raise FileNotFoundError(f"Skill directory '{skill_dir}' not found.")
    for name in _SKILL_FILES:
        if (skill_dir / name).exists():
            return skill_dir / name
    raise FileNotFoundError(f"SKILL.md not found in '{skill_dir}'.")


def _parse_skill_md(skill_dir: pathlib.Path) -> tuple[dict, str, pathlib.Path]:
    skill_md = _skill_md(skill_dir)
    parsed, body = _parse_skill_md_content(skill_md.read_text(encoding="utf-8"))
    return parsed, body, skill_md


def _check_name_matches(skill_dir: pathlib.Path, frontmatter: models.Frontmatter) -> None:
    if skill_dir.name != frontmatter.name:
        raise ValueError(f"Skill name '{frontmatter.name}' does not match directory name '{skill_dir.name}'.")


def _load_skill_from_dir(skill_dir: Union[str, pathlib.Path]) -> models.Skill:
    """The skill in ``skill_dir``, whole. FileNotFoundError without the folder or its SKILL.md,
    ValueError (pydantic's ValidationError is one) when SKILL.md is invalid."""
    skill_dir = pathlib.Path(skill_dir).resolve()
    parsed, body, _ = _parse_skill_md(skill_dir)
    frontmatter = models.Frontmatter.model_validate(parsed)
    _check_name_matches(skill_dir, frontmatter)
    resources = models.Resources(
        references=_load_dir(skill_dir / "references"),
        assets=_load_dir(skill_dir / "assets"),
        scripts=_build_scripts(_load_dir(skill_dir / "scripts")),
    )
    skill = models.Skill(frontmatter=frontmatter, instructions=body, resources=resources)
    skill._uri = skill_dir.as_uri()
    return skill


def _load_skills_from_dir(skills_dir: Union[str, pathlib.Path]) -> list[models.Skill]:
    """Every skill folder (one with a SKILL.md) directly under ``skills_dir``, by name."""
    skills_dir = pathlib.Path(skills_dir).resolve()
    if not skills_dir.exists():
        raise FileNotFoundError(f"Skills directory '{skills_dir}' does not exist.")
    if not skills_dir.is_dir():
        raise ValueError(f"'{skills_dir}' is not a directory.")
    return [
        _load_skill_from_dir(sub)
        for sub in sorted(skills_dir.iterdir())
        if sub.is_dir() and any((sub / name).exists() for name in _SKILL_FILES)
    ]


def _validate_skill_dir(skill_dir: Union[str, pathlib.Path]) -> list[str]:
    """What is wrong with ``skill_dir`` as a skill, without loading its resources ([] if nothing)."""
    skill_dir = pathlib.Path(skill_dir).resolve()
    if not skill_dir.exists():
        return [f"Directory '{skill_dir}' does not exist."]
    if not skill_dir.is_dir():
        return [f"'{skill_dir}' is not a directory."]
    try:
        parsed, _, _ = _parse_skill_md(skill_dir)
    except (FileNotFoundError, ValueError) as error:
        return [str(error)]
    problems = []
    unknown = set(parsed) - _FRONTMATTER_KEYS
    if unknown:
        problems.append(f"Unknown frontmatter fields: {sorted(unknown)}")
    try:
        frontmatter = models.Frontmatter.model_validate(parsed)
    except ValidationError as error:
        return problems + [f"Frontmatter validation error: {error}"]
    try:
        _check_name_matches(skill_dir, frontmatter)
    except ValueError as error:
        problems.append(str(error))
    return problems


def _read_skill_properties(skill_dir: Union[str, pathlib.Path]) -> models.Frontmatter:
    """Only the frontmatter of the skill in ``skill_dir``."""
    parsed, _, _ = _parse_skill_md(pathlib.Path(skill_dir).resolve())
    return models.Frontmatter.model_validate(parsed)


def _list_skills_in_dir(
    skills_base_path: Union[str, pathlib.Path],
    on_error: Optional[Callable[[str, Exception], None]] = None,
) -> dict[str, models.Frontmatter]:
    """The frontmatter of each valid skill folder under ``skills_base_path``, by folder name. An
    invalid one goes to ``on_error`` (which may raise to stop) or, without it, to a warning."""
    base = pathlib.Path(skills_base_path).resolve()
    found: dict[str, models.Frontmatter] = {}
    if not base.is_dir():
        logger.warning("Skills base path '%s' is not a directory.", base)
        return found
    for skill_dir in sorted(base.iterdir()):
        if not skill_dir.is_dir():
            continue
        try:
            frontmatter = _read_skill_properties(skill_dir)
            _check_name_matches(skill_dir, frontmatter)
            found[skill_dir.name] = frontmatter
        except (FileNotFoundError, ValueError) as error:
            if on_error is not None:
                on_error(skill_dir.name, error)
            else:
                logger.warning("Skipping invalid skill '%s' in directory '%s': %s", skill_dir.name, base, error)
    return found


async def _load_skill_from_dir_async(skill_dir: Union[str, pathlib.Path]) -> models.Skill:
    return await asyncio.to_thread(_load_skill_from_dir, skill_dir)


async def _load_skills_from_dir_async(skills_dir: Union[str, pathlib.Path]) -> list[models.Skill]:
    return await asyncio.to_thread(_load_skills_from_dir, skills_dir)


async def _list_skills_in_dir_async(
    skills_base_path: Union[str, pathlib.Path],
    on_error: Optional[Callable[[str, Exception], None]] = None,
) -> dict[str, models.Frontmatter]:
    return await asyncio.to_thread(_list_skills_in_dir, skills_base_path, on_error)


def _refuse_gcs(*args: Any, **kwargs: Any) -> Any:
    from runtime.cloud_services import CloudServiceUnavailableError

    raise CloudServiceUnavailableError(
        "Loading skills from Google Cloud Storage needs GCS, which Chronicle does not call. Copy the "
        "skill folders to disk and use load_skill_from_dir / list_skills_in_dir."
    )


async def _refuse_gcs_async(*args: Any, **kwargs: Any) -> Any:
    return _refuse_gcs()


_load_skill_from_gcs_dir = _list_skills_in_gcs_dir = _refuse_gcs
_load_skill_from_gcs_dir_async = _list_skills_in_gcs_dir_async = _refuse_gcs_async


from runtime.skills._zip import _load_skill_from_zip_bytes  # noqa: E402,F401 - its ADK path; it needs this module's helpers
